import Foundation
import GRDB
import HyzerCrypto
import HyzerDomain
import HyzerKit

/// Views on stores holding years of play: standings and breakdown of one round, the three
/// stats, and opening the store and computing history — with the history cache filled (the
/// usual case), first after a sync brought one more round (that round is evaluated, the rest
/// come from the cache), and the very first time, before the cache holds anything.
struct ViewBenchmark {
    let rounds: Int
    /// A second, larger store for history only.
    let largeRounds: Int
    let repetitions: Int
    let scratch: URL

    func run() throws -> [Figure] {
        let history = BenchHistory.segments(keys: SigningKeyPair(seed: Array(repeating: 21, count: 32)), rounds: rounds, later: repetitions)
        let directory = scratch.appendingPathComponent("views")
        let replica = try Replica.create(
            at: directory, name: "bench", kind: .laptop, keys: SigningKeyPair(seed: Array(repeating: 22, count: 32)))
        _ = try replica.ingest([history.first])
        try replica.close()

        let main = try historyFigures(directory, rounds: rounds, later: history.later, target: 20, suffix: "")
        var standings = Samples()
        var breakdown = Samples()
        var rawRound = Samples()
        var rawAll = Samples()
        var playerStats = Samples()
        var headToHead = Samples()
        var courseStats = Samples()
        for _ in 0..<repetitions {
            let opened = try Replica.open(at: directory)
            standings.add(try Stopwatch.seconds { _ = try opened.roundView(history.lastRound)!.evaluation.standings })
            breakdown.add(
                try Stopwatch.seconds { _ = try opened.roundView(history.lastRound)!.evaluation.breakdown(player: history.player) })
            let players = try opened.players()
            let player = players.first { $0.id.lowercased == history.player }!
            let opponent = players.first { $0.id != player.id }!
            let course = try opened.course(SeededCourses.all[1].id)!
            playerStats.add(
                try Stopwatch.seconds {
                    _ = PlayerStats(
                        player: player, rounds: try opened.completedRounds { $0.participants.contains { $0.id == history.player } })
                })
            headToHead.add(
                try Stopwatch.seconds { _ = HeadToHead(player: player, opponent: opponent, rounds: try opened.completedRounds()) })
            courseStats.add(
                try Stopwatch.seconds { _ = CourseStats(course: course, rounds: try opened.completedRounds { $0.courseID == course.id }) })
            try opened.close()
            let raw = try DatabaseQueue(path: directory.appendingPathComponent(Replica.databaseFileName).path)
            rawRound.add(try Stopwatch.seconds { _ = try raw.read { try Self.rawRows(db: $0, round: history.lastRound) } })
            rawAll.add(try Stopwatch.seconds { _ = try raw.read { try Self.rawRows(db: $0, round: nil) } })
            try raw.close()
        }

        let large = BenchHistory.segments(
            keys: SigningKeyPair(seed: Array(repeating: 23, count: 32)), rounds: largeRounds, later: repetitions)
        let largeDirectory = scratch.appendingPathComponent("views-large")
        let largeReplica = try Replica.create(
            at: largeDirectory, name: "bench", kind: .laptop, keys: SigningKeyPair(seed: Array(repeating: 24, count: 32)))
        _ = try largeReplica.ingest([large.first])
        try largeReplica.close()
        let largeFigures = try historyFigures(
            largeDirectory, rounds: largeRounds, later: large.later, target: 60, suffix: " (\(largeRounds) rounds)")

        return [
            figure("standings (1 round of \(rounds))", standings, rawRound, target: 2),
            figure("breakdown (1 round of \(rounds))", breakdown, rawRound, target: 2),
            stats("stats player", playerStats, rawAll),
            stats("stats head-to-head", headToHead, rawAll),
            stats("stats course", courseStats, rawAll),
        ] + main + largeFigures
    }

    /// Open + history on the store in `directory`: the first time (no cache), then per
    /// repetition once after ingesting one more round and once more with nothing new.
    private func historyFigures(_ directory: URL, rounds: Int, later: [AuthorSegment], target: Double, suffix: String) throws -> [Figure] {
        var expected = rounds
        func openAndHistory() throws -> Double {
            try Stopwatch.seconds {
                let opened = try Replica.open(at: directory)
                let completed = try opened.history().count
                precondition(completed == expected, "every bench round is completed")
                try opened.close()
            }
        }
        var first = Samples()
        first.add(try openAndHistory())
        var afterSync = Samples()
        var cached = Samples()
        var rawAll = Samples()
        for segment in later {
            let replica = try Replica.open(at: directory)
            _ = try replica.ingest([segment])
            try replica.close()
            expected += 1
            afterSync.add(try openAndHistory())
            cached.add(try openAndHistory())
            let raw = try DatabaseQueue(path: directory.appendingPathComponent(Replica.databaseFileName).path)
            rawAll.add(try Stopwatch.seconds { _ = try raw.read { try Self.rawRows(db: $0, round: nil) } })
            try raw.close()
        }
        func milliseconds(_ samples: Samples) -> Double { samples.median * 1000 }
        func figure(_ name: String, _ samples: Samples, target: Double?) -> Figure {
            Figure(
                name: name + suffix, value: milliseconds(samples), unit: "ms", baseline: milliseconds(rawAll),
                baselineName: "raw SQLite read of every score op of every round", ratio: rawAll.median / samples.median,
                target: target.map { "≤ \(Int($0)) ms" }, met: target.map { milliseconds(samples) <= $0 }, spread: samples.spread)
        }
        return [
            figure("open store + history", cached, target: target),
            figure("open store + history after a sync of one round", afterSync, target: nil),
            figure("open store + history, first run with no cache", first, target: nil),
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
