import Foundation

/// Runs the built `hyzer-peer` binary as a separate process, the way a user would.
public struct BinaryRunner: Sendable {
    /// What one run printed and how it ended.
    public struct Result: Sendable, CustomStringConvertible {
        public let status: Int32
        public let stdout: String
        public let stderr: String

        /// Standard output without its final newline.
        public var output: String { stdout.hasSuffix("\n") ? String(stdout.dropLast()) : stdout }

        public var description: String { "exit \(status)\nstdout: \(stdout)\nstderr: \(stderr)" }
    }

    /// The binary: `HYZER_PEER_BINARY`, or `hyzer-peer` beside the test bundle in the build folder.
    public let executable: URL
    /// The store every run uses, through `HYZER_STORE`.
    public let store: URL

    /// A runner of another copy of the binary.
    public init(store: URL, executable: URL) {
        self.store = store
        self.executable = executable
    }

    public init(store: URL) {
        self.store = store
        if let path = ProcessInfo.processInfo.environment["HYZER_PEER_BINARY"] {
            executable = URL(fileURLWithPath: path)
        } else {
            executable = Self.buildFolder().appendingPathComponent("hyzer-peer")
        }
    }

    /// The folder holding the test bundle, which SwiftPM also builds the executable into.
    static func buildFolder() -> URL {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while folder.path != "/" {
            if FileManager.default.isExecutableFile(atPath: folder.appendingPathComponent("hyzer-peer").path) { return folder }
            folder.deleteLastPathComponent()
        }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    }

    /// Runs `hyzer-peer arguments…` to completion.
    @discardableResult
    public func run(_ arguments: String..., environment: [String: String] = [:]) throws -> Result {
        try run(arguments, environment: environment)
    }

    /// `input`, when given, is what the process reads from standard input (then end of file).
    @discardableResult
    public func run(_ arguments: [String], environment: [String: String] = [:], input: [UInt8]? = nil) throws -> Result {
        let process = try start(arguments, environment: environment, input: input)
        let stdout = (process.standardOutput as! Pipe).fileHandleForReading.readDataToEndOfFile()
        let stderr = (process.standardError as! Pipe).fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// Starts `hyzer-peer arguments…` with piped output and returns without waiting.
    /// A command that was expected to succeed quietly and did not.
    public struct Failure: Error, CustomStringConvertible {
        public let arguments: [String]
        public let result: Result
        public var description: String { "`\(arguments.joined(separator: " "))` did not succeed: \(result)" }
    }

    /// Runs a command that must succeed (exit 0) — quietly, with nothing on stderr, unless
    /// `quiet` is false (a sync's warnings, a server's logs) — and returns its output without the
    /// last newline; anything else throws `Failure`.
    @discardableResult
    public func ok(_ arguments: String..., environment: [String: String] = [:], quiet: Bool = true) throws -> String {
        try ok(arguments, environment: environment, quiet: quiet)
    }

    @discardableResult
    public func ok(_ arguments: [String], environment: [String: String] = [:], quiet: Bool = true) throws -> String {
        let result = try run(arguments, environment: environment)
        guard result.status == 0, result.stderr.isEmpty || !quiet else { throw Failure(arguments: arguments, result: result) }
        return result.output
    }

    /// The store's op-set digest, as `status --json` prints it.
    public func digest() throws -> String {
        let status = try JSONSerialization.jsonObject(with: Data(try ok("status", "--json").utf8)) as? [String: Any]
        return status?["digest"] as? String ?? ""
    }

    public func start(_ arguments: [String], environment: [String: String] = [:], input: [UInt8]? = nil) throws -> Process {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var merged = ProcessInfo.processInfo.environment
        merged["HYZER_STORE"] = store.path
        merged["NO_COLOR"] = "1"
        for (key, value) in environment { merged[key] = value }
        process.environment = merged
        process.standardOutput = Pipe()
        process.standardError = Pipe()
        let stdin = input.map { _ in Pipe() }
        process.standardInput = stdin ?? FileHandle.nullDevice
        try process.run()
        if let stdin, let input {
            stdin.fileHandleForWriting.write(Data(input))
            try stdin.fileHandleForWriting.close()
        }
        return process
    }
}
