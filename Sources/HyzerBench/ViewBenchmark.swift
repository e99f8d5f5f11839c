import Foundation
import GRDB
import HyzerCrypto
import HyzerDomain
import HyzerKit

/// Views on a store holding five years of play: standings and breakdown of one round, opening
/// the store and computing history, and the three stats.
struct ViewBenchmark {
    let rounds: Int
    let repetitions: Int
    let scratch: URL

    func run() throws -> [Figure] {
        let history = BenchHistory.segment(keys: SigningKeyPair(seed: Array(repeating: 21, count: 32)), rounds: rounds)
        let directory = scratch.appendingPathComponent("views")
        let replica = try Replica.create(at: directory, name: "bench", kind: .laptop, keys: SigningKeyPair(seed: Array(repeating: 22, count: 32)))
        _ = try replica.ingest([history.segment])
        try replica.close()

        var standings = Samples()
        var breakdown = Samples()
        var openAndHistory = Samples()
        var rawRound = Samples()
        var rawAll = Samples()
        var playerStats = Samples()
        var headToHead = Samples()
        var courseStats = Samples()
        for _ in 0..<repetitions {
            openAndHistory.add(try Stopwatch.seconds {
                let opened = try Replica.open(at: directory)
                let completed = try opened.history().count
                precondition(completed == rounds, "every bench round is completed")
                try opened.close()
            })
            let opened = try Replica.open(at: directory)
            standings.add(try Stopwatch.seconds { _ = try opened.roundView(history.lastRound)!.evaluation.standings })
            breakdown.add(try Stopwatch.seconds { _ = try opened.roundView(history.lastRound)!.evaluation.breakdown(player: history.player) })
            let players = try opened.players()
            let player = players.first { $0.id.lowercased == history.player }!
            let opponent = players.first { $0.id != player.id }!
            let course = try opened.course(SeededCourses.all[1].id)!
            playerStats.add(try Stopwatch.seconds {
                _ = PlayerStats(player: player, rounds: try opened.completedRounds { $0.participants.contains { $0.id == history.player } })
            })
            headToHead.add(try Stopwatch.seconds { _ = HeadToHead(player: player, opponent: opponent, rounds: try opened.completedRounds()) })
            courseStats.add(try Stopwatch.seconds { _ = CourseStats(course: course, rounds: try opened.completedRounds { $0.courseID == course.id }) })
            try opened.close()
            let raw = try DatabaseQueue(path: directory.appendingPathComponent(Replica.databaseFileName).path)
            rawRound.add(try Stopwatch.seconds { _ = try raw.read { try Self.rawRows(db: $0, round: history.lastRound) } })
            rawAll.add(try Stopwatch.seconds { _ = try raw.read { try Self.rawRows(db: $0, round: nil) } })
            try raw.close()
        }
        func milliseconds(_ samples: Samples) -> Double { samples.median * 1000 }
        return [
            figure("standings (1 round of \(rounds))", standings, rawRound, target: 2),
            figure("breakdown (1 round of \(rounds))", breakdown, rawRound, target: 2),
            Figure(
                name: "open store + history", value: milliseconds(openAndHistory), unit: "ms", baseline: milliseconds(rawAll),
                baselineName: "raw SQLite read of every score op of every round", ratio: rawAll.median / openAndHistory.median,
                target: "≤ 100 ms", met: milliseconds(openAndHistory) <= 100, spread: openAndHistory.spread),
            stats("stats player", playerStats, rawAll),
            stats("stats head-to-head", headToHead, rawAll),
            stats("stats course", courseStats, rawAll),
        ]
    }

    private func figure(_ name: String, _ samples: Samples, _ baseline: Samples, target: Double) -> Figure {
        Figure(
            name: name, value: samples.median * 1000, unit: "ms", baseline: baseline.median * 1000,
            baselineName: "raw SQLite read of the round's score ops (the same rows)", ratio: baseline.median / samples.median,
            target: "≤ \(Int(target)) ms", met: samples.median * 1000 <= target, spread: samples.spread)
    }

    /// A stats figure: every completed round of the store is read, so the floor is reading every score op.
    private func stats(_ name: String, _ samples: Samples, _ baseline: Samples) -> Figure {
        Figure(
            name: "\(name) (\(rounds) rounds)", value: samples.median * 1000, unit: "ms", baseline: baseline.median * 1000,
            baselineName: "raw SQLite read of every score op of every round", ratio: baseline.median / samples.median,
            target: "≤ 20 ms", met: samples.median * 1000 <= 20, spread: samples.spread)
    }

    /// The rows the views read, read raw: the floor for any view over them.
    private static func rawRows(db: Database, round: UUID?) throws -> Int {
        let sql = """
            SELECT o.tail FROM ops o WHERE substr(o.tail, 13, 1) = x'0a'
            \(round == nil ? "" : "AND substr(o.tail, 14, 16) = ?")
            """
        let rows = try Row.fetchCursor(db, sql: sql, arguments: round.map { [Data($0.bytes)] } ?? [])
        var bytes = 0
        while let row = try rows.next() { bytes += (row[0] as Data).count }
        return bytes
    }
}
