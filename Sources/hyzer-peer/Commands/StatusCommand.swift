import ArgumentParser
import HyzerDomain
import HyzerEngine
import HyzerKit

/// A frozen author with its evidence: both hashes at the fork point, or why it froze.
struct ForkEntry: Encodable {
    let author: String
    let sequence: UInt64
    let heldHash: String?
    let otherHash: String?
    let reason: String

    init(_ frozen: FrozenAuthor) {
        author = frozen.author.hex
        sequence = frozen.sequence
        switch frozen.reason {
        case .fork(let held, let other):
            heldHash = Hex.encode(held)
            otherHash = Hex.encode(other)
            reason = "fork"
        case .stampNotIncreasing:
            heldHash = nil
            otherHash = nil
            reason = "stamp not increasing"
        }
    }

    var line: String {
        if let heldHash, let otherHash {
            return
                "author \(author) forked at op \(sequence): held \(heldHash), other \(otherHash); its ops from \(sequence) on do not count"
        }
        return "author \(author) is frozen at op \(sequence): \(reason); its ops from \(sequence) on do not count"
    }
}

struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "What this replica holds and knows.")
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions

    struct Document: Encodable {
        let replica: String
        let name: String
        let device: String
        let versionVector: [String: UInt64]
        let digest: String
        let ops: Int
        let pendingOps: Int
        let heldSegments: Int
        let writtenElsewhere: Bool
        let forks: [ForkEntry]
        let players: Int
        let courses: Int
        let rounds: Int
    }

    func run() async throws {
        let status = try await storeOptions.openEngine().read(.status)
        let document = Document(
            replica: status.identity.author.hex, name: status.identity.name, device: status.identity.kind.rawValue,
            versionVector: Dictionary(uniqueKeysWithValues: status.versionVector.sortedEntries.map { ($0.author.hex, $0.sequence) }),
            digest: status.digest, ops: status.opCount, pendingOps: status.pendingOps, heldSegments: status.heldSegments,
            writtenElsewhere: status.writtenElsewhere, forks: status.forks.map(ForkEntry.init),
            players: status.players, courses: status.courses, rounds: status.rounds)
        if output.json { return try JSONOutput.print(document) }
        print("\(document.name) (\(document.device)) \(document.replica)")
        print("\(document.ops) ops from \(document.versionVector.count) authors, \(document.pendingOps) waiting for a gap to fill")
        if document.heldSegments > 0 {
            print("\(document.heldSegments) segments held: stamped more than 10 minutes ahead of this clock, applied when it gets there")
        }
        print("\(document.players) players, \(document.courses) courses, \(document.rounds) rounds")
        print("digest \(document.digest)")
        var table = Table([("Author", .left), ("Ops", .right)])
        for entry in status.versionVector.sortedEntries {
            table.add(entry.author.short + (entry.author == status.identity.author ? " (this replica)" : ""), "\(entry.sequence)")
        }
        print(table.render())
        for fork in document.forks { print(Terminal.paint(fork.line, .red)) }
        if document.writtenElsewhere {
            print(
                Terminal.paint(
                    "another copy of this store writes with this device's key; continue with `hyzer-peer device continue`", .red))
        }
    }
}

struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify", abstract: "Check hash chains, signatures and views; list ops that views ignore.")
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions

    struct Ignored: Encodable {
        let author: String
        let sequence: UInt64
        let reason: String
    }

    struct Document: Encodable {
        let intact: Bool
        let opsChecked: Int
        let signaturesChecked: Int
        let problems: [String]
        let ignoredOps: [Ignored]
        let forks: [ForkEntry]
    }

    func run() async throws {
        let report = try await storeOptions.openEngine().verify()
        let document = Document(
            intact: report.isIntact, opsChecked: report.opsChecked, signaturesChecked: report.signaturesChecked,
            problems: report.problems.map(\.description),
            ignoredOps: report.ignoredOps.map { Ignored(author: $0.author.hex, sequence: $0.sequence, reason: $0.reason) },
            forks: report.forks.map(ForkEntry.init))
        if output.json {
            try JSONOutput.print(document)
        } else {
            print("\(document.opsChecked) ops and \(document.signaturesChecked) signatures checked")
            for problem in document.problems { print(Terminal.paint("problem: \(problem)", .red)) }
            for fork in document.forks { print("fork: \(fork.line)") }
            for ignored in document.ignoredOps {
                print("ignored: op \(ignored.sequence) of \(ignored.author.prefix(12)): \(ignored.reason)")
            }
            print(document.intact ? "intact" : "NOT intact")
        }
        if !report.isIntact {
            Terminal.error("error: the store failed verification; restore it from a backup or sync a fresh replica from a peer")
            throw ReportedFailure(exitCode: 1)
        }
    }
}
