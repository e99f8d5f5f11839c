import Foundation
import HyzerBench
import HyzerKit
import Testing

/// Nothing on the HTTP side writes to the replica or serves anything outside its routes.
@Suite struct ReadOnlyTests {
    static let routes = [
        "/", "/history", "/rounds/latest", "/rounds/latest/players/Ann", "/players/Ann", "/api/rounds",
        "/api/rounds/latest", "/api/rounds/latest/standings", "/api/rounds/latest/discrepancies",
        "/api/rounds/latest/players/Ann", "/api/history", "/api/players", "/api/players/Ann", "/metrics", "/health",
    ]

    @Test func everyRouteAnswersGet() async throws {
        let served = try await ServedRound()
        for route in Self.routes {
            #expect(try await served.get(route).status == 200, "GET \(route)")
        }
    }

    @Test func everyOtherMethodIsRefusedAndNothingChanges() async throws {
        let served = try await ServedRound()
        let before = try served.replica.digest()
        for route in Self.routes + ["/rounds/latest/events", "/nowhere"] {
            for method in ["POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"] {
                let response = try await HTTPProbe.fetch(
                    port: served.port, method: method, path: route, body: method == "POST" ? "strokes=1" : "")
                #expect(response.status == 405, "\(method) \(route): \(response.head)")
                #expect(response.head.contains("Allow: GET") || response.head.contains("allow: GET"))
            }
        }
        #expect(try served.replica.digest() == before)
    }

    @Test func nothingOutsideTheRoutesIsServed() async throws {
        let served = try await ServedRound()
        for path in [
            "/nowhere", "/rounds", "/rounds/00000000/players", "/rounds/ffffffff", "/players/Nobody", "/api/rounds/ffffffff",
            "/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/rounds/latest/players/Nobody", "/store.sqlite",
            "/web-view-salt", "/api/players/Nobody",
        ] {
            #expect(try await served.get(path).status == 404, "GET \(path)")
        }
    }
}
