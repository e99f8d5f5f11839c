import ArgumentParser
import Foundation
import HyzerDomain
import HyzerEngine
import HyzerKit

struct RoundCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "round", abstract: "Rounds and their lifecycle.",
        subcommands: [Start.self, List.self, Show.self, Finish.self])

    struct Start: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Start a round; prints its id.")
        @OptionGroup var storeOptions: StoreOptions
        @Option(help: "The course's id, id prefix or name.") var course: String
        @Option(help: "Registered players, comma-separated.") var players: String?
        @Option(name: .customLong("guest"), help: "A guest's name (repeatable).") var guests: [String] = []
        @Option(help: "The organizer (default: this device's owner).") var organizer: String?

        func run() async throws {
            let names = (players ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            let engine = try await storeOptions.openEngine()
            let course = try await engine.course(matching: course)
            var players: [PlayerID] = []
            for name in names {
                let player = try await engine.player(matching: name)
                guard !players.contains(player) else { throw RoundError.playerListedTwice(name) }
                players.append(player)
            }
            var organizerID: PlayerID?
            if let organizer { organizerID = try await engine.player(matching: organizer) }
            print(try await engine.startRound(on: course, players: players, guests: guests, organizer: organizerID))
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Rounds, most recently started first.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let rounds = try await storeOptions.openEngine().roundDocuments()
            if output.json { return try JSONOutput.print(rounds) }
            var table = Table([("Round", .left), ("Course", .left), ("Started", .left), ("Players", .right), ("Status", .left)])
            for round in rounds {
                table.add(
                    String(round.id.description.prefix(8)), round.course, DateText.day(round.startedAt), "\(round.participants.count)",
                    round.status.rawValue)
            }
            print(table.render())
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "A round: course, participants, status.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The round's id, id prefix, or latest.") var round: String

        func run() async throws {
            let engine = try await storeOptions.openEngine()
            let id = try await engine.round(matching: round)
            guard let view = try await engine.roundView(id), let document = try await engine.roundDocument(id) else {
                throw ReplicaError.unknown(kind: "round", text: round)
            }
            if output.json { return try JSONOutput.print(document) }
            print("\(document.course) · round \(document.id) · \(document.status)")
            print("started \(DateText.minute(document.startedAt)), \(document.holeCount) holes, par \(view.round.totalPar)")
            var table = Table([("Participant", .left), ("Id", .left), ("", .left)])
            for member in document.participants {
                table.add(
                    member.name, member.id.description, member.id == document.organizerID ? "organizer" : (member.isGuest ? "guest" : ""))
            }
            print(table.render())
            if !document.late.isEmpty {
                let names = Dictionary(try await engine.devices().map { ($0.id.hex, $0.name) }, uniquingKeysWith: { first, _ in first })
                print("\n" + DiscrepanciesCommand.renderLate(document.late, round: document.id.description, devices: names))
            }
            let receipts = try await engine.receipts(of: id)
            guard !receipts.isEmpty else { return }
            let devices = Dictionary(try await engine.devices().map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
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

    struct Finish: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Finish a round (organizer's device only).")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "The round's id, id prefix, or latest.") var round: String
        @Flag(help: "Finish even though scores are missing or disputed.") var force = false

        func run() async throws {
            let engine = try await storeOptions.openEngine()
            let round = try await engine.round(matching: round)
            // The engine signs this device's receipt of the round.
            try await engine.finishRound(round, force: force)
            print("finished round \(round)")
        }
    }
}
