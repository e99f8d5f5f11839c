import Foundation
import GRDB
import HyzerCrypto
import HyzerDomain
import HyzerKit

/// Views on stores holding years of play: standings and breakdown of one round; opening the
/// store and computing history — with the history cache filled (the usual case), first after a
/// sync brought one more round (that round is evaluated, the rest come from the cache), and the
/// very first time, before the cache holds anything; and the three stats, which read the same
/// cache. History and stats run on two stores, the second one larger.
struct ViewBenchmark {
    let rounds: Int
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
        let mainStats = try statsFigures(directory, rounds: rounds, player: history.player)
        var standings = Samples()
        var breakdown = Samples()
        var rawRound = Samples()
        for _ in 0..<repetitions {
            let opened = try Replica.open(at: directory)
            standings.add(try Stopwatch.seconds { _ = try opened.roundView(history.lastRound)!.evaluation.standings })
            breakdown.add(
                try Stopwatch.seconds { _ = try opened.roundView(history.lastRound)!.evaluation.breakdown(player: history.player) })
            try opened.close()
            let raw = try DatabaseQueue(path: directory.appendingPathComponent(Replica.databaseFileName).path)
            rawRound.add(try Stopwatch.seconds { _ = try raw.read { try Self.rawRows(db: $0, round: history.lastRound) } })
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
        let largeStats = try statsFigures(largeDirectory, rounds: largeRounds, player: large.player)

        return [
            figure("standings (1 round of \(rounds))", standings, rawRound, target: 2),
            figure("breakdown (1 round of \(rounds))", breakdown, rawRound, target: 2),
        ] + mainStats + largeStats + main + largeFigures
    }

    /// The three stats on the store of `rounds` rounds in `directory` (holding one more round per
    /// repetition after `historyFigures`, its history cache current as `history` left it), each on
    /// an open replica: reading every completed round's cards and computing the stat.
    private func statsFigures(_ directory: URL, rounds: Int, player id: ParticipantID) throws -> [Figure] {
        var playerStats = Samples()
        var headToHead = Samples()
        var courseStats = Samples()
        var rawAll = Samples()
        for _ in 0..<repetitions {
            let opened = try Replica.open(at: directory)
            let players = try opened.players()
            let player = players.first { ParticipantID(player: $0.id) == id }!
            let opponent = players.first { $0.id != player.id }!
            let course = try opened.course(SeededCourses.all[1].id)!
            var counted: [Int] = []
            playerStats.add(
                try Stopwatch.seconds { counted.append(PlayerStats(player: player, played: try opened.playedRounds()).roundsPlayed) })
            headToHead.add(
                try Stopwatch.seconds {
                    counted.append(HeadToHead(player: player, opponent: opponent, played: try opened.playedRounds()).sharedRounds)
                })
            courseStats.add(
                try Stopwatch.seconds { counted.append(CourseStats(course: course, played: try opened.playedRounds()).roundsPlayed) })
            precondition(counted == Array(repeating: rounds + repetitions, count: 3), "every bench round is completed with every card full")
            try opened.close()
            let raw = try DatabaseQueue(path: directory.appendingPathComponent(Replica.databaseFileName).path)
            rawAll.add(try Stopwatch.seconds { _ = try raw.read { try Self.rawRows(db: $0, round: nil) } })
            try raw.close()
        }
        return [
            stats("stats player (\(rounds) rounds)", playerStats, rawAll),
            stats("stats head-to-head (\(rounds) rounds)", headToHead, rawAll),
            stats("stats course (\(rounds) rounds)", courseStats, rawAll),
        ]
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

    /// A stats figure: every completed round of the store is read, so the floor for computing
    /// it from the ops is reading every score op.
    private func stats(_ name: String, _ samples: Samples, _ baseline: Samples) -> Figure {
        Figure(
            name: name, value: samples.median * 1000, unit: "ms", baseline: baseline.median * 1000,
            baselineName: "raw SQLite read of every score op of every round", ratio: baseline.median / samples.median,
            target: "≤ 20 ms", met: samples.median * 1000 <= 20, spread: samples.spread)
    }

    /// The rows the views read, read raw: the floor for any view over them.
    private static func rawRows(db: Database, round: UUID?) throws -> Int {
        let sql = """
            SELECT o.tail FROM ops o WHERE o.kind = x'0a'
            \(round == nil ? "" : "AND o.scoredRoundPrefix = ? AND o.scoredRound = ?")
            """
        let rows = try Row.fetchCursor(db, sql: sql, arguments: round.map { [Data($0.bytes.prefix(2)), Data($0.bytes)] } ?? [])
        var bytes = 0
        while let row = try rows.next() { bytes += (row[0] as Data).count }
        return bytes
    }
}
