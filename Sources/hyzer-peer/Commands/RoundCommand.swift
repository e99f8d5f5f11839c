import ArgumentParser
import Foundation
import HyzerDomain
import HyzerKit

struct RoundCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "round", abstract: "Rounds and their lifecycle.",
        subcommands: [Start.self, List.self, Show.self, Finish.self])

    struct Start: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Start a round; prints its id.")
        @OptionGroup var storeOptions: StoreOptions
        @Option(help: "The course's id, id prefix or name.") var course: String
        @Option(help: "Registered players, comma-separated.") var players: String?
        @Option(name: .customLong("guest"), help: "A guest's name (repeatable).") var guests: [String] = []
        @Option(help: "The organizer (default: this device's owner).") var organizer: String?

        func run() throws {
            let names = (players ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            let round = try storeOptions.open().startRound(course: course, players: names, guests: guests, organizer: organizer)
            print(round.id.lowercased)
        }
    }

    /// A round as `round list --json` and `round show --json` print it.
    struct Document: Encodable {
        struct Member: Encodable { let id: String; let name: String; let isGuest: Bool }
        let id: String
        let course: String
        let courseID: String
        let status: String
        let organizerID: String
        let startedAt: UInt64
        let holeCount: Int
        let pars: [Int]
        let participants: [Member]
        /// The round signature as this replica computes it now (hex), and every device's receipt.
        let signature: String
        let receipts: [Receipt]

        struct Receipt: Encodable { let device: String; let signature: String }

        init(_ view: RoundView, receipts: [RoundReceipt]) {
            signature = Hex.encode(RoundSignature.of(view.evaluation))
            self.receipts = receipts.map { Receipt(device: $0.device.hex, signature: Hex.encode($0.signature)) }
            let round = view.round
            id = round.id.lowercased
            course = round.courseName
            courseID = round.courseID.lowercased
            status = view.evaluation.status.rawValue
            organizerID = round.organizerID
            startedAt = round.startedAt.physicalMilliseconds
            holeCount = round.holeCount
            pars = round.pars
            participants = round.participants.map { Member(id: $0.id, name: $0.name, isGuest: $0.isGuest) }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Rounds, most recently started first.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            let replica = try storeOptions.open()
            let rounds = try replica.rounds().map { try Document($0, receipts: replica.receipts(round: $0.round.id)) }
            if output.json { return try JSONOutput.print(rounds) }
            var table = Table([("Round", .left), ("Course", .left), ("Started", .left), ("Players", .right), ("Status", .left)])
            for round in rounds {
                table.add(String(round.id.prefix(8)), round.course, DateText.day(round.startedAt), "\(round.participants.count)", round.status)
            }
            print(table.render())
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "A round: course, participants, status.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The round's id, id prefix, or latest.") var round: String

        func run() throws {
            let replica = try storeOptions.open()
            let view = try RoundLookup.view(round, in: replica)
            let document = Document(view, receipts: try replica.receipts(round: view.round.id))
            if output.json { return try JSONOutput.print(document) }
            print("\(document.course) · round \(document.id) · \(document.status)")
            print("started \(DateText.minute(document.startedAt)), \(document.holeCount) holes, par \(view.round.totalPar)")
            var table = Table([("Participant", .left), ("Id", .left), ("", .left)])
            for member in document.participants {
                table.add(member.name, member.id, member.id == document.organizerID ? "organizer" : (member.isGuest ? "guest" : ""))
            }
            print(table.render())
            let receipts = try replica.receipts(round: view.round.id)
            guard !receipts.isEmpty else { return }
            let devices = Dictionary(try replica.devices().map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
            let current = RoundSignature.of(view.evaluation)
            print("\nreceipts (round signature \(Hex.encode(current).prefix(16)) here)")
            var signatures = Table([("Signature", .left), ("Devices", .left)])
            for signature in receipts.map(\.signature).reduce(into: [[UInt8]](), { if !$0.contains($1) { $0.append($1) } }) {
                let signers = receipts.filter { $0.signature == signature }.map { devices[$0.device] ?? String($0.device.hex.prefix(12)) }
                signatures.add(String(Hex.encode(signature).prefix(16)), signers.joined(separator: ", "))
            }
            print(signatures.render())
        }
    }

    struct Finish: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Finish a round (organizer's device only).")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "The round's id, id prefix, or latest.") var round: String
        @Flag(help: "Finish even though scores are missing or disputed.") var force = false

        func run() throws {
            let replica = try storeOptions.open()
            let finished = try replica.finishRound(round, force: force)
            try replica.signReceipts()
            print("finished round \(finished.id.lowercased)")
        }
    }
}

/// Finding a round's view from the user's text.
enum RoundLookup {
    static func view(_ text: String, in replica: Replica) throws -> RoundView {
        guard let view = try replica.roundView(try replica.resolveRound(text)) else {
            throw ReplicaError.unknown(kind: "round", text: text)
        }
        return view
    }
}

/// Dates in human output, in UTC so that every replica prints the same text.
enum DateText {
    static func day(_ milliseconds: UInt64) -> String {
        String(minute(milliseconds).prefix(10))
    }

    static func minute(_ milliseconds: UInt64) -> String {
        let text = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
        return text.prefix(16).replacingOccurrences(of: "T", with: " ") + " UTC"
    }
}
