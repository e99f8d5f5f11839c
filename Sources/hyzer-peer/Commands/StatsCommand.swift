import ArgumentParser
import HyzerDomain
import HyzerEngine
import HyzerKit

struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats", abstract: "Players' records and how courses play, from completed rounds.",
        subcommands: [PlayerStatsCommand.self, HeadToHeadCommand.self, CourseStatsCommand.self])
}

struct PlayerStatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "player", abstract: "A player's rounds, average, bests per course and trend.")
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions
    @Argument(help: "The player's id, id prefix or name.") var player: String

    func run() async throws {
        let engine = try await storeOptions.openEngine()
        let stats = try await engine.playerStats(of: try await engine.player(matching: player))
        if output.json { return try JSONOutput.print(stats) }
        print(Self.render(stats))
    }

    static func render(_ stats: PlayerStats) -> String {
        guard let average = stats.averageRelativeToPar, let best = stats.best else {
            return "\(stats.name) has no completed round with a full card yet"
        }
        var lines = [
            "\(stats.name) · \(stats.roundsPlayed) round\(stats.roundsPlayed == 1 ? "" : "s") · average \(StatsText.signed(average)) · "
                + "best \(Terminal.paint(best.formatted, ScoreColour.total(best.relativeToPar))) (\(best.course), \(DateText.day(best.startedAt)))",
            "trend \(Sparkline.render(stats.trend.map(\.relativeToPar))) (oldest to newest, relative to par; lower is better)",
            "",
        ]
        var table = Table([("Course", .left), ("Best", .right), ("Strokes", .right), ("Date", .left), ("Round", .left)])
        for result in stats.personalBests {
            table.add([
                .init(result.course), .init(result.formatted, ScoreColour.total(result.relativeToPar)), .init("\(result.totalStrokes)"),
                .init(DateText.day(result.startedAt)), .init(String(result.round.description.prefix(8))),
            ])
        }
        lines.append(table.render())
        return lines.joined(separator: "\n")
    }
}

struct HeadToHeadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "head-to-head", abstract: "Two players over the completed rounds they both played.")
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions
    @Argument(help: "The player's id, id prefix or name.") var player: String
    @Argument(help: "The opponent's id, id prefix or name.") var opponent: String

    func run() async throws {
        let engine = try await storeOptions.openEngine()
        let player = try await engine.player(matching: player)
        let opponent = try await engine.player(matching: opponent)
        guard player != opponent else {
            throw CommandLineError.samePlayer(self.player, self.opponent)
        }
        let record = try await engine.headToHead(player, against: opponent)
        if output.json { return try JSONOutput.print(record) }
        print(Self.render(record))
    }

    static func render(_ record: HeadToHead) -> String {
        let (player, opponent) = (record.player.name, record.opponent.name)
        guard let difference = record.averageStrokeDifference else {
            return "\(player) and \(opponent) have not finished a round together yet"
        }
        let header =
            "\(player) vs \(opponent) · \(record.sharedRounds) shared round\(record.sharedRounds == 1 ? "" : "s") · "
            + "\(record.wins) won, \(record.losses) lost, \(record.ties) tied · average difference \(StatsText.signed(difference)) strokes"
        var table = Table([("Date", .left), ("Course", .left), (player, .right), (opponent, .right), ("Result", .left), ("Round", .left)])
        for meeting in record.lastMeetings {
            table.add(
                DateText.day(meeting.startedAt), meeting.course, "\(meeting.playerStrokes)", "\(meeting.opponentStrokes)",
                meeting.result.rawValue,
                String(meeting.round.description.prefix(8)))
        }
        return header + "\n\nlast meetings\n" + table.render()
    }
}

struct CourseStatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "course", abstract: "How a course plays: rounds, each hole's average, the hardest and easiest holes.")
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions
    @Argument(help: "The course's id, id prefix or name.") var course: String

    func run() async throws {
        let engine = try await storeOptions.openEngine()
        let stats = try await engine.courseStats(of: try await engine.course(matching: course))
        if output.json { return try JSONOutput.print(stats) }
        print(Self.render(stats))
    }

    static func render(_ stats: CourseStats) -> String {
        guard let hardest = stats.hardest, let easiest = stats.easiest else { return "no completed round on \(stats.course) yet" }
        let header =
            "\(stats.course) · \(stats.roundsPlayed) round\(stats.roundsPlayed == 1 ? "" : "s") · \(stats.cards) cards · "
            + "hardest hole \(hardest.hole) (\(StatsText.signed(hardest.averageRelativeToPar!))) · "
            + "easiest hole \(easiest.hole) (\(StatsText.signed(easiest.averageRelativeToPar!)))"
        var table = Table([("Hole", .right), ("Par", .right), ("Average", .right), ("vs par", .right), ("Cards", .right)])
        for hole in stats.holes {
            table.add(
                "\(hole.hole)", "\(hole.par)", hole.averageStrokes.map(StatsText.decimal) ?? "·",
                hole.averageRelativeToPar.map(StatsText.signed) ?? "·", "\(hole.cards)")
        }
        return header + "\n" + table.render()
    }
}

/// Averages in human output: two decimals, with a sign when relative to par.
enum StatsText {
    static func decimal(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded(.toNearestOrAwayFromZero))
        let magnitude = abs(hundredths)
        let fraction = magnitude % 100
        return (hundredths < 0 ? "-" : "") + "\(magnitude / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }

    static func signed(_ value: Double) -> String {
        (value > 0 ? "+" : "") + decimal(value)
    }
}
