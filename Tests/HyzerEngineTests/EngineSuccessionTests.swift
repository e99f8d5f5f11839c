import Foundation
import HyzerDomain
import HyzerKit
import HyzerTestSupport
import Testing

@testable import HyzerEngine

/// `device continue` through the façade (docs/security.md, "Re-keying"): a copied store goes on
/// under a new key that succeeds the old one and keeps its owner.
@Suite struct EngineSuccessionTests {
    let directory = TemporaryDirectory("engine-succession")

    @Test func aStoreContinuesUnderANewKeyThatKeepsItsOwner() async throws {
        let old = try await HyzerEngine.create(at: directory.path("phone"), deviceName: "phone", owner: "Ann")
        let ann = try #require(try await old.owner())
        let oldDevice = old.device
        try await old.close()

        let (engine, predecessor) = try await HyzerEngine.continueUnderNewKey(at: directory.path("phone"))
        #expect(predecessor == oldDevice)
        #expect(engine.device != oldDevice)
        #expect(try await engine.owner() == ann, "the successor owns what its predecessor owned")
        let round = try await engine.startRound(on: try await engine.course(matching: "Morley Field"), players: [ann])
        try await engine.finishRound(round, force: true)
        try await engine.close()
        let reopened = try await HyzerEngine.open(at: directory.path("phone"))
        #expect(reopened.device == engine.device, "the new key is the store's key from now on")
        try await reopened.close()
    }
}
