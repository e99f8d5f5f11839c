import Foundation
import HyzerBench
import HyzerKit
import Testing

/// The pages show the replica's views: positions, scores, disputes, cards and trends.
@Suite struct PagesTests {
    @Test func theLeaderboardShowsPositionsScoresAndMovement() async throws {
        let served = try await ServedRound()
        let round = served.round
        for (name, strokes) in [("Ann", 3), ("Ben", 4), ("Cat", 2)] {
            _ = try served.replica.recordScore(round: round, player: name, hole: 1, strokes: strokes)
        }
        for (name, strokes) in [("Ann", 2), ("Ben", 2), ("Cat", 4)] {
            _ = try served.replica.recordScore(round: round, player: name, hole: 2, strokes: strokes)
        }
        let page = try await served.get("/rounds/\(round)")
        #expect(page.status == 200)
        #expect(page.head.lowercased().contains("content-type: text/html; charset=utf-8"))
        let rows = page.body.components(separatedBy: "<tr data-player=").dropFirst()
        #expect(rows.count == 3)
        // Ann -1 leads; Ben and Cat share second at E. Ann came from second, Cat from first.
        #expect(rows[rows.startIndex].contains(">Ann</a>") && rows[rows.startIndex].contains("<td class=\"pos\">1</td>"))
        #expect(rows[rows.startIndex].contains("tier-underPar\">-1<") && rows[rows.startIndex].contains("▲1"))
        #expect(rows.dropFirst().allSatisfy { $0.contains("<td class=\"pos\">T2</td>") && $0.contains("tier-atPar\">E<") })
        #expect(rows.contains { $0.contains(">Cat</a>") && $0.contains("▼1") && $0.contains("down 1") })
        #expect(page.body.contains("data-events=\"/rounds/\(round)/events\""))
    }

    @Test func namesAreEscaped() async throws {
        let served = try await ServedRound()
        try served.replica.renamePlayer("Ben", to: "<script>alert(1)</script>")
        let page = try await served.get("/rounds/\(served.round)")
        #expect(!page.body.contains("<script>alert(1)"))
        #expect(page.body.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
    }

    @Test func aDisputedHoleIsMarked() async throws {
        let served = try await ServedRound()
        let other = try Replica.create(at: served.directory.path("other"), name: "other", kind: .phone)
        _ = try other.ingest(try served.replica.delta(above: other.versionVector()))
        _ = try served.replica.recordScore(round: served.round, player: "Ben", hole: 1, strokes: 3)
        _ = try other.recordScore(round: served.round, player: "Ben", hole: 1, strokes: 4)
        _ = try served.replica.ingest(try other.delta(above: served.replica.versionVector()))
        let board = try await served.get("/rounds/\(served.round)").body
        #expect(board.contains("<span class=\"disputed\">1 disputed</span>"))
        let card = try await served.get("/rounds/\(served.round)/players/Ben").body
        #expect(card.contains("<span class=\"disputed\">disputed</span>"))
    }

    /// docs/rules.md, "Late scores": a score written before the finish that reached the
    /// organizer after it is listed under the board, with the command that counts it, and the
    /// live fragment carries it.
    @Test func aLateScoreIsListedWithWhatToDo() async throws {
        let served = try await ServedRound()
        let other = try Replica.create(at: served.directory.path("other"), name: "other", kind: .phone)
        _ = try other.ingest(try served.replica.delta(above: other.versionVector()))
        _ = try served.replica.recordScore(round: served.round, player: "Ann", hole: 1, strokes: 3)
        let late = try other.recordScore(round: served.round, player: "Ben", hole: 1, strokes: 4)
        let before = try await served.get("/rounds/\(served.round)").body
        #expect(!before.contains("Late scores"))
        try served.replica.finishRound(served.round, force: true)
        _ = try served.replica.ingest(try other.delta(above: served.replica.versionVector()))
        let board = try await served.get("/rounds/\(served.round)").body
        let id = late.id.lowercased
        #expect(board.contains("<h3 id=\"late-title\">Late scores, not counted</h3>"))
        #expect(
            board.contains(
                "<li data-event=\"\(id)\">Ben, hole 1: 4 strokes. Count it on the organizer's device with <code>hyzer-peer resolve \(served.round.prefix(8)) --late \(id.prefix(8))</code></li>"
            ), "\(board)")
        let api = try await served.get("/api/rounds/\(served.round)/discrepancies").body
        #expect(api.contains(#""late":[{"createdAt":"#) && api.contains(#""eventID":"\#(id)""#))
    }

    @Test func theJSONIsTheCLIsDocuments() async throws {
        let served = try await ServedRound()
        _ = try served.replica.recordScore(round: served.round, player: "Ann", hole: 1, strokes: 2)
        let view = try served.replica.roundView(matching: served.round)
        let standings = try await served.get("/api/rounds/\(served.round)/standings")
        #expect(standings.head.lowercased().contains("content-type: application/json"))
        #expect(standings.body == String(decoding: try DocumentEncoding.encode(StandingsDocument(view)), as: UTF8.self))
        #expect(standings.body.hasPrefix(#"{"course":"Morley Field","round":""#))
        let card = try await served.get("/api/rounds/\(served.round)/players/Ann").body
        #expect(
            card
                == String(
                    decoding: try DocumentEncoding.encode(view.evaluation.breakdown(player: view.round.participants[0].id)!), as: UTF8.self)
        )
        #expect(
            try await served.get("/api/rounds").body
                == String(decoding: try DocumentEncoding.encode(served.replica.roundDocuments()), as: UTF8.self))
    }

    @Test func aPlayersPageDrawsTheTrendOfCompletedRounds() async throws {
        let served = try await ServedRound()
        for (index, strokes) in [4, 2, 3].enumerated() {
            let round = index == 0 ? served.round : try served.replica.startRound(course: "Morley Field", players: ["Ann"]).id.lowercased
            let holes = try served.replica.roundView(matching: round).round.holeCount
            for hole in 1...holes {
                _ = try served.replica.recordScore(round: round, player: "Ann", hole: hole, strokes: hole == 1 ? strokes : 3)
            }
            _ = try served.replica.finishRound(round, force: true)
        }
        let page = try await served.get("/players/Ann").body
        #expect(page.contains("3 completed rounds"))
        #expect(page.contains("<svg class=\"chart\""))
        #expect(page.components(separatedBy: "<circle ").count - 1 == 3)
        #expect(page.contains("oldest first: +1, -1, E"), "\(page)")
        #expect(page.contains("<polyline points=\""))
        let api = try await served.get("/api/players/Ann").body
        #expect(api.contains(#""formatted":"E""#) && api.contains(#""name":"Ann""#))
        let index = try await served.get("/").body
        #expect(index.contains("Recently finished") && index.contains("won by Ann"))
        #expect(try await served.get("/history").body.components(separatedBy: "<tr><td>").count - 1 == 3)
    }
}
