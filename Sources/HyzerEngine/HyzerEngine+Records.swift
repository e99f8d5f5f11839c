import Foundation
import HyzerKit

/// The store as a whole: checking it, and carrying rounds in and out as UDisc scorecards
/// (docs/formats.md, "UDisc").
extension HyzerEngine {
    /// Checks every op's hash chain and signature and rebuilds the views from the log
    /// (`hyzer-peer verify`); the report lists what does not hold.
    public func verify() async throws -> VerifyReport {
        try await perform(.read) { try $0.verify() }
    }

    /// Imports UDisc scorecards (read and checked with `UDiscScorecard(text:)`), creating the
    /// courses and players they name that the store lacks; a round held already is skipped.
    public func importUDisc(_ scorecards: [UDiscScorecard]) async throws -> UDiscImportReport {
        try await perform(.write) { try $0.importUDisc(scorecards) }
    }

    /// Every completed round as one UDisc scorecard CSV text.
    public func exportUDisc() async throws -> String {
        try await perform(.read) { try $0.exportUDisc() }
    }
}
