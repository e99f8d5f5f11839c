import Foundation
import HyzerTestSupport
import Testing

/// docs/store.md, "The op columns": a store written by the release before migration
/// `v12-op-columns` (`Tests/Fixtures/store-v11`, made by the commands in its README) opens,
/// migrates and reads as it did: the same standings, byte for byte, the same op-set digest, an
/// intact `verify`, and new scores found through the index on the op columns.
@Suite struct StoreUpgradeTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/store-v11")

    let directory = TemporaryDirectory("store-upgrade")

    /// A copy of the fixture's store, its key private again (git keeps no file modes but 0644).
    func copiedStore() throws -> URL {
        let store = directory.path("store")
        try FileManager.default.createDirectory(at: store, withIntermediateDirectories: true)
        #expect(chmod(store.path, 0o700) == 0)
        for file in ["identity.key", "replica.sqlite"] {
            let target = store.appendingPathComponent(file)
            try FileManager.default.copyItem(at: Self.fixture.appendingPathComponent(file), to: target)
            #expect(chmod(target.path, 0o600) == 0)
        }
        return store
    }

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func aStoreOfTheReleaseBeforeTheOpColumnsReadsAsItDid() throws {
        let cli = BinaryRunner(store: try copiedStore())
        let expectedStandings = try String(contentsOf: Self.fixture.appendingPathComponent("standings.json"), encoding: .utf8)
        let expectedStatus = try json(String(contentsOf: Self.fixture.appendingPathComponent("status.json"), encoding: .utf8))

        let standings = try cli.run("standings", "latest", "--json")
        #expect(standings.status == 0, "\(standings)")
        #expect(standings.stdout == expectedStandings)

        let status = try json(try cli.run("status", "--json").stdout)
        #expect(status["digest"] as? String == expectedStatus["digest"] as? String)
        #expect(status["ops"] as? Int == 15)

        let verify = try cli.run("verify")
        #expect(verify.status == 0, "\(verify)")

        // The round the release wrote is found through the new index: a new round's scores
        // beside it count in their own round only.
        #expect(try cli.run("round", "start", "--course", "Maple Hill", "--players", "Jake,Maya").status == 0)
        #expect(try cli.run("score", "latest", "--player", "Maya", "--hole", "1", "--strokes", "4").status == 0)
        let newRound = try json(try cli.run("standings", "latest", "--json").stdout)
        let rows = try #require(newRound["standings"] as? [[String: Any]])
        #expect(rows.compactMap { $0["totalStrokes"] as? Int }.sorted() == [0, 4])
        #expect(try cli.run("verify").status == 0)
    }
}
