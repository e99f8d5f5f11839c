import Foundation

/// Where human output goes and whether it may be coloured: on a terminal, or wherever
/// `CLICOLOR_FORCE` is set to something other than `0` (for `| less -R`), and never when
/// `NO_COLOR` is set (https://no-color.org, https://bixense.com/clicolors).
enum Terminal {
    static let colours: Bool = {
        let environment = ProcessInfo.processInfo.environment
        if let noColour = environment["NO_COLOR"], !noColour.isEmpty { return false }
        if let force = environment["CLICOLOR_FORCE"], !force.isEmpty, force != "0" { return true }
        return isatty(STDOUT_FILENO) == 1
    }()

    /// Whether standard output is a terminal (redrawing in place makes sense).
    static let isInteractive: Bool = isatty(STDOUT_FILENO) == 1

    /// The colours of the seeds' score tokens.
    enum Colour: String {
        case green = "\u{1B}[32m"
        case white = "\u{1B}[37m"
        case amber = "\u{1B}[33m"
        case red = "\u{1B}[31m"
        case dim = "\u{1B}[2m"
        case bold = "\u{1B}[1m"
    }

    static func paint(_ text: String, _ colour: Colour?) -> String {
        guard colours, let colour else { return text }
        return colour.rawValue + text + "\u{1B}[0m"
    }

    /// Writes one line to standard output at once, unbuffered (for long-running commands).
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// Writes one line to standard error.
    static func error(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}
