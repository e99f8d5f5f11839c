import ArgumentParser
import Foundation
import HyzerDomain
import HyzerEngine
import HyzerKit

/// The newcomer's tour, on a temporary store that is removed afterwards.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "demo", abstract: "A guided tour on temporary local replicas.")

    @Flag(help: "Keep the temporary stores and print where they are.") var keep = false

    func run() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("hyzer-demo-\(UUID().uuidString.prefix(8))")
        defer { if !keep { try? FileManager.default.removeItem(at: root) } }
        let tour = Tour(root: root)
        let round = try await tour.run()
        try await LiveTour(root: root, round: round).run()
        if keep { print("\nstores kept in \(root.path)") }
    }
}

/// The demo's first part: Jake's phone scores a round on Morley Field with four players, then Maya's
/// phone and a laptop join through a shared folder; a disputed hole is settled by the organizer.
struct Tour {
    let root: URL

    func step(_ text: String) { print("\n" + Terminal.paint("▸ " + text, .bold)) }

    /// Plays the folder part; returns the round for the live part. The replicas score by name
    /// (`Replica`'s commands); joining and syncing run through each store's engine.
    func run() async throws -> Round {
        step("init a replica on Jake's phone: a store, an Ed25519 key pair and three seeded courses")
        let jake = try Replica.create(at: root.appendingPathComponent("jake-phone"), name: "jake-phone", kind: .phone, owner: "Jake")
        print("replica id \(jake.author.hex)")
        for name in ["Sam", "Priya"] { try jake.addPlayer(name: name) }

        step("Maya's phone and a laptop join Jake's group with an invite token")
        let jakeEngine = try await HyzerEngine.open(at: jake.directory)
        try await jakeEngine.createGroup()
        let token = try await jakeEngine.invite(uses: 2, expires: .seconds(86_400))
        print("token \(token.prefix(24))… (admits 2 devices within a day)")
        let maya = try Replica.create(at: root.appendingPathComponent("maya-phone"), name: "maya-phone", kind: .phone, owner: "Maya")
        let laptop = try Replica.create(at: root.appendingPathComponent("laptop"), name: "laptop", kind: .laptop)
        let joining = [try await HyzerEngine.open(at: maya.directory), try await HyzerEngine.open(at: laptop.directory)]
        let folder = root.appendingPathComponent("shared-folder")
        // Each asks through the folder; Jake's next folder sync admits both; each then joins and syncs.
        for engine in joining {
            try await engine.acceptInvitation(token: token)
            _ = try await engine.syncFolder(folder)
        }
        _ = try await jakeEngine.syncFolder(folder)
        for engine in joining {
            guard case .synced(_, joined: .some) = try await engine.syncFolder(folder) else { throw CommandLineError.tourNotAdmitted }
        }
        let everyone = [jake, maya, laptop]
        let engines = [jakeEngine] + joining
        func syncAll() async throws {
            for _ in 0..<2 { for engine in engines { _ = try await engine.syncFolder(folder) } }
        }
        try await syncAll()

        let round = try jake.startRound(course: "Morley Field", players: ["Jake", "Maya", "Sam", "Priya"])
        step("round \(round.id.lowercased.prefix(8)) started on \(round.courseName) (par \(round.totalPar)), organized by Jake")
        try await syncAll()
        let card: [String: [Int]] = [
            "Jake": [3, 2, 3, 3, 4, 3, 2, 3, 3],
            "Maya": [2, 3, 3, 3, 3, 3, 3, 3, 2],
            "Sam": [3, 3, 4, 3, 3, 4, 3, 3, 3],
            "Priya": [3, 3, 3, 2, 3, 3, 3, 4, 3],
        ]
        let id = round.id.lowercased
        var sams7: ScoreEvent?
        for hole in 1...9 {
            for name in ["Jake", "Maya", "Sam", "Priya"] {
                let event = try jake.recordScore(round: id, player: name, hole: hole, strokes: card[name]![hole - 1])
                if name == "Sam", hole == 7 { sams7 = event }
            }
            // Maya keeps her own card too: equal scores merge silently, hole 4 does not.
            try maya.recordScore(round: id, player: "Maya", hole: hole, strokes: hole == 4 ? 4 : card["Maya"]![hole - 1])
        }
        print("Jake's phone recorded 36 scores, Maya's phone 9 of her own: each a signed op")
        step("Sam's 3 on hole 7 was really a 2: a correction supersedes the event, it never edits it")
        let correction = try jake.correct(event: sams7!.id.lowercased, strokes: 2)
        print("event \(correction.id.lowercased.prefix(8)) supersedes \(sams7!.id.lowercased.prefix(8))")

        step("everyone syncs through the shared folder (encrypted bundles, one directory per replica)")
        try await syncAll()
        let disputed = try laptop.roundView(round.id)!
        let deviceNames = Dictionary(try laptop.devices().map { ($0.id.hex, $0.name) }, uniquingKeysWith: { first, _ in first })
        for discrepancy in disputed.evaluation.discrepancies {
            let leaves = discrepancy.leaves.map { "\($0.strokes) from \(deviceNames[$0.deviceID.hex] ?? $0.deviceID.hex)" }
            print("the laptop sees a discrepancy: hole \(discrepancy.hole), \(discrepancy.name): " + leaves.joined(separator: " vs "))
        }

        step("Jake, the organizer, settles Maya's hole 4 at 3 from his phone; the laptop could not")
        do {
            try laptop.resolve(round: id, player: "Maya", hole: 4, strokes: 3)
        } catch {
            print("laptop: \(error)")
        }
        try jake.resolve(round: id, player: "Maya", hole: 4, strokes: 3)
        try await syncAll()

        step("standings after nine holes, printed by each replica")
        let boards = try everyone.map { try StandingsCommand.render($0.roundView(round.id)!) }
        for (replica, board) in zip(everyone, boards) {
            print(Terminal.paint(try replica.identity().name, .dim))
            print(board)
        }
        print(Set(boards).count == 1 ? "identical on all three replicas" : "NOT identical")
        let digests = try Set(everyone.map { try $0.digest() })
        print(digests.count == 1 ? "one op-set digest: \(digests.first!.prefix(16))…" : "digests differ")

        step("Maya's hole-by-hole breakdown, from her own phone")
        let view = try maya.roundView(round.id)!
        print(BreakdownCommand.render(view.evaluation.breakdown(player: round.participants[1].id)!))
        step("verify: hash chains, signatures, and views rebuilt from the log")
        let report = try laptop.verify()
        print("\(report.opsChecked) ops checked on the laptop, \(report.isIntact ? "intact" : "NOT intact")")
        for engine in engines { try await engine.close() }
        return round
    }
}
