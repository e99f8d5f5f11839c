import Foundation
import HyzerBench
import HyzerKit
import HyzerTestSupport
import HyzerWeb
import Logging

/// A replica with a round of three players, served by an in-process `WebServer`.
final class ServedRound: Sendable {
    let directory = TemporaryDirectory("hyzer-web")
    let replica: Replica
    let round: String
    let server: WebServer.Running

    var port: Int { server.port }

    init(access: WebAccess = .open) async throws {
        replica = try Replica.create(at: directory.path("store"), name: "clubhouse", kind: .laptop, owner: "Ann")
        for name in ["Ben", "Cat"] { try replica.addPlayer(name: name) }
        round = try replica.startRound(course: "Morley Field", players: ["Ann", "Ben", "Cat"]).id.lowercased
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        server = try await WebServer(replica: replica, access: access, metrics: WebMetrics(), logger: logger).start()
    }

    deinit { server.stop() }

    func get(_ path: String, headers: [String] = []) async throws -> (status: Int, head: String, body: String) {
        try await HTTPProbe.fetch(port: port, path: path, headers: headers)
    }
}
