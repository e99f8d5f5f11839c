import Foundation
import HyzerBench
import HyzerCrypto
import HyzerDomain
import HyzerKit
import HyzerSync
import HyzerTestSupport
import Logging
import Testing

@testable import HyzerWeb

/// `serve --publish` (docs/bucket-sync.md, "Publishing the leaderboard"): the read-only pages as
/// static files in a real S3-compatible store (SeaweedFS on loopback), read back as a spectator
/// would, with plain unsigned GETs from the store's public prefix.
@Suite struct PublishTests {
    static let enabled = SeaweedFS.executable != nil || SeaweedFS.underCI

    /// An unsigned GET of `name` under `prefix` straight from the store, as a static host serves it.
    static func fetch(_ store: SeaweedFS, _ prefix: String, _ name: String) async throws -> (status: Int, head: String, body: String) {
        try await HTTPProbe.fetch(port: store.port, path: "/\(SeaweedFS.bucket)/\(prefix)/\(name)")
    }

    /// Waits up to `seconds` until `condition` holds for the file's answer; its last answer.
    static func poll(
        _ store: SeaweedFS, _ prefix: String, _ name: String, seconds: Double = 10,
        until condition: ((status: Int, head: String, body: String)) -> Bool
    ) async throws -> (status: Int, head: String, body: String) {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            // Only an answer asked for after the deadline is the last: amid a full suite this
            // task may wait long on the concurrency pool between asking and reading the answer.
            let asked = Date()
            let answer = try await fetch(store, prefix, name)
            if condition(answer) || asked > deadline { return answer }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    static func quiet() -> Logger {
        var logger = Logger(label: "publish-test")
        logger.logLevel = .critical
        return logger
    }

    @Test(.enabled(if: enabled, Comment(rawValue: SeaweedFS.install)))
    func aScoreReachesThePublishedLeaderboardWithinThreeSecondsAndAnUnchangedStoreCostsNothing() async throws {
        let store = try SeaweedFS.ready()
        let served = try await ServedRound()
        let secret = SecureRandom.bytes(GroupMembership.secretBytes)
        try served.replica.join(GroupMembership(id: GroupMembership.groupID(organizer: served.replica.author), secret: secret))
        let prefix = "\(SeaweedFS.publicPrefix)/league-\(UUID().uuidString.prefix(8).lowercased())"
        let client = try store.client(prefix)
        let publisher = Publisher(replica: served.replica, client: client, logger: Self.quiet())
        let running = Task { try await publisher.run() }
        defer { running.cancel() }
        let page = "round-\(served.round).html"

        // The first publish writes the site: every page and its JSON, readable without a signature.
        let first = try await Self.poll(store, prefix, page) { $0.status == 200 }
        #expect(first.status == 200, "\(first)")
        #expect(first.head.lowercased().contains("content-type: text/html; charset=utf-8"))
        #expect(first.head.lowercased().contains("cache-control: public, max-age=5"))
        #expect(!first.body.contains("tier-underPar\">-1<"))

        let scored = ContinuousClock.now
        _ = try served.replica.recordScore(round: served.round, player: "Ben", hole: 1, strokes: 2)
        let after = try await Self.poll(store, prefix, page, seconds: 3) {
            $0.body.contains("<td class=\"num score tier-underPar\">-1</td>")
        }
        let latency = ContinuousClock.now - scored
        #expect(after.body.contains("<td class=\"num score tier-underPar\">-1</td>"), "the score was not published within 3 s")
        #expect(latency < .seconds(3), "\(latency)")

        // The JSON is the web side's, byte for byte; links are relative and there is no event stream.
        let json = try await Self.poll(store, prefix, "round-\(served.round).json") { $0.body.contains("\"relativeToPar\":-1") }
        #expect(json.head.lowercased().contains("content-type: application/json"))
        #expect(json.body == (try await served.get("/api/rounds/\(served.round)/standings")).body)
        #expect(try await Self.fetch(store, prefix, "rounds.json").body == (try await served.get("/api/rounds")).body)
        let index = try await Self.fetch(store, prefix, "index.html")
        #expect(index.body.contains("href=\"\(page)\""), "\(index.body)")
        for body in [after.body, index.body] {
            #expect(!body.contains("href=\"/"), "an absolute link: \(body)")
            #expect(!body.contains("data-events"))
        }

        // Nothing of the group: only pages and JSON, no bundle, no vector, not the secret.
        let listing = try await client.list(prefix: prefix + "/").get()
        // The front page, the history, the round and its three cards, each beside its JSON.
        #expect(listing.objects.count == 12, "\(listing.objects.map(\.key))")
        #expect(listing.objects.allSatisfy { $0.key.hasSuffix(".html") || $0.key.hasSuffix(".json") })
        for object in listing.objects {
            let text = try await Self.fetch(store, prefix, String(object.key.dropFirst(prefix.count + 1))).body
            #expect(!text.contains(Hex.encode(secret)) && !text.contains(Data(secret).base64EncodedString()))
        }

        // An unchanged store publishes nothing; a change that alters no page is published without a request.
        try await Task.sleep(for: .milliseconds(1_500))
        let settled = (publisher.published, client.requestsSent)
        try await Task.sleep(for: .seconds(2))
        #expect(publisher.published == settled.0 && client.requestsSent == settled.1)
        try served.replica.addPlayer(name: "Dee")
        let deadline = Date().addingTimeInterval(10)
        while publisher.published.publishes == settled.0.publishes, Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        // (The commit may signal twice: each publish finds nothing to write.)
        try await Task.sleep(for: .milliseconds(1_500))
        #expect(publisher.published.publishes > settled.0.publishes)
        #expect(publisher.published.filesWritten == settled.0.filesWritten && client.requestsSent == settled.1)
    }

    /// A store that is down: the publish fails and is tried again after a back-off, and once the
    /// store is back the site catches up; the replica goes on recording meanwhile.
    @Test(.enabled(if: enabled, Comment(rawValue: SeaweedFS.install)))
    func aStoreThatIsDownIsTriedAgainAndTheSiteCatchesUp() async throws {
        let store = try SeaweedFS.ready()
        let served = try await ServedRound()
        let prefix = "\(SeaweedFS.publicPrefix)/down-\(UUID().uuidString.prefix(8).lowercased())"
        let publisher = Publisher(replica: served.replica, client: try store.client(prefix), logger: Self.quiet())
        let running = Task { try await publisher.run() }
        defer { running.cancel() }
        let page = "round-\(served.round).html"
        #expect(try await Self.poll(store, prefix, page) { $0.status == 200 }.status == 200)

        store.kill()
        _ = try served.replica.recordScore(round: served.round, player: "Cat", hole: 1, strokes: 4)
        let deadline = Date().addingTimeInterval(20)
        while publisher.published.failures == 0, Date() < deadline { try await Task.sleep(for: .milliseconds(100)) }
        #expect(publisher.published.failures >= 1)
        _ = try served.replica.recordScore(round: served.round, player: "Ann", hole: 1, strokes: 3)
        #expect(try await served.get("/rounds/\(served.round)").body.contains("tier-atPar\">E<"), "serving goes on")

        try store.restart()
        let caughtUp = try await Self.poll(store, prefix, page, seconds: 30) { $0.body.contains("tier-atPar\">E<") }
        #expect(caughtUp.body.contains("tier-overPar\">+1<") && caughtUp.body.contains("tier-atPar\">E<"))
    }
}
