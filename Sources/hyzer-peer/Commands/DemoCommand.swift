import ArgumentParser
import Foundation
import HyzerDomain
import HyzerKit

/// The newcomer's tour, on a temporary store that is removed afterwards.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "demo", abstract: "A guided tour on temporary local replicas.")

    @Flag(help: "Keep the temporary stores and print where they are.") var keep = false

    func run() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("hyzer-demo-\(UUID().uuidString.prefix(8))")
        defer { if !keep { try? FileManager.default.removeItem(at: root) } }
        try Tour(root: root).run()
        if keep { print("\nstores kept in \(root.path)") }
    }
}

/// The demo's script: one replica scoring a round on Morley Field with four players.
struct Tour {
    let root: URL

    func step(_ text: String) { print("\n" + Terminal.paint("▸ " + text, .bold)) }

    func run() throws {
        step("init a replica on Jake's phone: a store, an Ed25519 key pair and three seeded courses")
        let phone = try Replica.create(at: root.appendingPathComponent("jake-phone"), name: "jake-phone", kind: .phone, owner: "Jake")
        print("replica id \(phone.author.hex)")
        for name in ["Maya", "Sam", "Priya"] { try phone.addPlayer(name: name) }
        let round = try phone.startRound(course: "Morley Field", players: ["Jake", "Maya", "Sam", "Priya"])
        step("round \(round.id.lowercased.prefix(8)) started on \(round.courseName) (par \(round.totalPar))")
        let card: [String: [Int]] = [
            "Jake": [3, 2, 3, 3, 4, 3, 2, 3, 3],
            "Maya": [2, 3, 3, 3, 3, 3, 3, 3, 2],
            "Sam": [3, 3, 4, 3, 3, 4, 3, 3, 3],
            "Priya": [3, 3, 3, 2, 3, 3, 3, 4, 3],
        ]
        var sams7: ScoreEvent?
        for hole in 1...9 {
            for name in ["Jake", "Maya", "Sam", "Priya"] {
                let event = try phone.recordScore(round: round.id.lowercased, player: name, hole: hole, strokes: card[name]![hole - 1])
                if name == "Sam", hole == 7 { sams7 = event }
            }
        }
        print("36 scores recorded, each a signed op in the log")
        step("Sam's 3 on hole 7 was really a 2: a correction supersedes the event, it never edits it")
        let correction = try phone.correct(event: sams7!.id.lowercased, strokes: 2)
        print("event \(correction.id.lowercased.prefix(8)) supersedes \(sams7!.id.lowercased.prefix(8))")
        let view = try phone.roundView(round.id)!
        step("standings after nine holes")
        print(StandingsCommand.render(view))
        step("Maya's hole-by-hole breakdown")
        print(BreakdownCommand.render(view.evaluation.breakdown(player: round.participants[1].id)!))
        step("verify: hash chains, signatures, and views rebuilt from the log")
        let report = try phone.verify()
        print("\(report.opsChecked) ops checked, \(report.isIntact ? "intact" : "NOT intact")")
    }
}
