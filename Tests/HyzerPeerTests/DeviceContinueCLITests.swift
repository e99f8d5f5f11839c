import Foundation
import HyzerTestSupport
import Testing

/// A store restored from a backup learns that its key wrote elsewhere: it refuses to write,
/// names `device continue`, and that command carries on under a new key that keeps the owner.
@Suite struct DeviceContinueCLITests {
    let directory = TemporaryDirectory("device-continue")

    @Test func aRestoredStoreRefusesThenContinuesUnderANewKey() throws {
        let phone = BinaryRunner(store: directory.path("phone"))
        try phone.run("init", "--name", "phone", "--owner", "Ann")
        try phone.run("group", "create")
        // The backup: a copy of the whole store directory.
        try FileManager.default.copyItem(at: directory.path("phone"), to: directory.path("restored"))
        let restored = BinaryRunner(store: directory.path("restored"))
        try phone.run("player", "add", "Ben")
        let bundle = directory.path("phone.hzb").path
        #expect(try phone.run("export", "--out", bundle).status == 0)
        #expect(try restored.run("import", bundle).status == 0)

        let refused = try restored.run("player", "add", "Zed")
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("`hyzer-peer device continue`"))
        let status = try restored.run("status").stdout
        #expect(status.contains("another copy of this store writes with this device's key"))

        let continued = try restored.run("device", "continue")
        #expect(continued.status == 0)
        #expect(continued.stdout.hasPrefix("this store continues as device "))
        #expect(try restored.run("player", "add", "Zed").status == 0)
        // Ann is still this device's player: it may organize her rounds.
        #expect(try restored.run("round", "start", "--course", "Morley Field", "--players", "Ann,Ben").status == 0)
        #expect(try restored.run("verify").output.hasSuffix("intact"))
    }
}
