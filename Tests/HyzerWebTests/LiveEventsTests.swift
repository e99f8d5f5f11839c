import Foundation
import HyzerBench
import HyzerKit
import Testing

@testable import HyzerWeb

/// `/rounds/R/events`: the whole board at once, then again after each change that changed it.
@Suite struct LiveEventsTests {
    /// Whole board events received so far (each ends with the table's last data line and a blank line).
    @Sendable static func boards(_ text: String) -> Int { text.components(separatedBy: "data: </table>\n\n").count - 1 }

    @Test func aCommittedScoreReachesAnOpenStream() async throws {
        let served = try await ServedRound()
        let stream = try HTTPProbe(port: served.port, path: "/rounds/\(served.round)/events")
        #expect(await stream.read { Self.boards($0) == 1 })
        #expect(stream.received.lowercased().contains("content-type: text/event-stream"))
        #expect(stream.received.contains("retry: 1000"))
        #expect(!stream.received.contains(">-1<"))

        _ = try served.replica.recordScore(round: served.round, player: "Ben", hole: 1, strokes: 2)
        #expect(await stream.read { Self.boards($0) == 2 }, "no second event: \(stream.received)")
        let latest = String(stream.received.components(separatedBy: "event: board\n").last!.components(separatedBy: "\n\n").first!)
        #expect(latest.contains("data: <td class=\"num score tier-underPar\">-1</td>"), "\(latest)")
        // Every line of the fragment is a data line: the page's text cannot end the event early.
        #expect(latest.split(separator: "\n").allSatisfy { $0.hasPrefix("data: ") }, "\(latest)")
    }

    @Test func aChangeElsewhereSendsNothing() async throws {
        let served = try await ServedRound()
        let stream = try HTTPProbe(port: served.port, path: "/rounds/\(served.round)/events")
        #expect(await stream.read { Self.boards($0) == 1 })
        try served.replica.addPlayer(name: "Dee")
        _ = try served.replica.recordScore(round: served.round, player: "Cat", hole: 1, strokes: 4)
        #expect(await stream.read { Self.boards($0) == 2 })
        #expect(stream.received.contains("tier-overPar\">+1<"))
        // Adding a player outside the round did not send a board of its own.
        #expect(Self.boards(stream.received) == 2)
    }

    @Test func openStreamsAreBoundedAndAGonePageFreesItsPlace() async throws {
        let served = try await ServedRound()
        var streams: [HTTPProbe] = []
        for _ in 0..<LiveEvents.streamsMax {
            let stream = try HTTPProbe(port: served.port, path: "/rounds/\(served.round)/events")
            #expect(await stream.read { Self.boards($0) == 1 })
            streams.append(stream)
        }
        #expect(try await served.get("/rounds/\(served.round)/events").status == 503)
        // A page goes away; writing the next changes finds its connection closed (the first write
        // after a close still succeeds, as TCP does) and frees the place.
        streams.removeLast()
        _ = try served.replica.recordScore(round: served.round, player: "Ann", hole: 1, strokes: 2)
        #expect(await streams[0].read { Self.boards($0) == 2 })
        _ = try served.replica.recordScore(round: served.round, player: "Ann", hole: 2, strokes: 2)
        #expect(await streams[0].read { Self.boards($0) == 3 })
        var admitted = false
        for _ in 0..<100 where !admitted {
            let stream = try HTTPProbe(port: served.port, path: "/rounds/\(served.round)/events")
            admitted = await stream.read(seconds: 5) { $0.contains(" 200 ") && Self.boards($0) == 1 }
            if !admitted { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(admitted)
    }

    @Test func anUnknownRoundHasNoStream() async throws {
        let served = try await ServedRound()
        #expect(try await served.get("/rounds/ffffffff/events").status == 404)
    }
}
