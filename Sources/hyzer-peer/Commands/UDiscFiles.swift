import Foundation
import HyzerEngine
import HyzerKit

/// `import --udisc FILE…` and `export --udisc FILE`.
enum UDiscFiles {
    /// Reads and checks every file first; one bad file refuses them all, naming the file and row.
    static func `import`(_ files: [String], into engine: HyzerEngine) async throws {
        var scorecards: [UDiscScorecard] = []
        for file in files {
            let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? nil
            guard let size, let data = size <= UDiscScorecard.maximumBytes ? FileManager.default.contents(atPath: file) : nil else {
                throw size == nil
                    ? CommandLineError.udiscFileUnreadable(path: file)
                    : CommandLineError.udiscFileTooLarge(path: file, mebibytes: UDiscScorecard.maximumBytes / 1_048_576)
            }
            guard let text = String(data: data, encoding: .utf8) else {
                throw CommandLineError.udiscFileNotText(path: file)
            }
            do {
                scorecards.append(try UDiscScorecard(text: text))
            } catch {
                throw CommandLineError.udiscFileRefused(path: file, error)
            }
        }
        let report = try await engine.importUDisc(scorecards)
        for course in report.coursesCreated { print("created course \(course)") }
        for player in report.playersCreated { print("created player \(player)") }
        print("\(report.roundsImported) rounds imported, \(report.roundsAlreadyHeld) already held")
    }

    static func export(_ engine: HyzerEngine, to file: String) async throws {
        let text = try await engine.exportUDisc()
        try UserFile.write(file, Array(text.utf8))
        print("wrote \(text.split(separator: "\n").count - 1) rows to \(file)")
    }
}
