import Foundation
import HyzerTestSupport
import Testing

/// `device continue` and the group's epochs, end to end through the binary (docs/security.md,
/// "Re-keying"): a phone restored from a backup taken after the organizer's rekey continues
/// under a new key and still syncs with the others over TCP and through the folder, and the
/// organizer's next rekey reaches its new key.
@Suite struct ContinueAfterRekeyTests {
    let directory = TemporaryDirectory("continue-after-rekey")
    var folder: String { directory.path("shared").path }

    func device(_ name: String, owner: String) throws -> BinaryRunner {
        try BinaryRunner.phone(name, owner: owner, in: directory)
    }

    func players(_ cli: BinaryRunner) throws -> [String] { try cli.playerNames() }

    @Test func aPhoneRestoredAfterARekeyContinuesAndSyncsOnTheNewestEpoch() throws {
        let laptop = try device("laptop", owner: "Olga")
        let phone = try device("phone", owner: "Pat")
        let friend = try device("friend", owner: "Fay")
        let lost = try device("lost", owner: "Lou")
        try laptop.ok("group", "create")
        for cli in [phone, friend, lost] { try cli.join(laptop) }
        for _ in 0..<2 { for cli in [laptop, phone, friend, lost] { try cli.ok("sync", "--folder", folder, quiet: false) } }
        #expect(try laptop.ok("group", "remove", "lost").hasSuffix("the group key is now epoch 1"))
        for cli in [laptop, phone, friend] { try cli.ok("sync", "--folder", folder, quiet: false) }

        // The backup holds epoch 1, sealed to the phone's old key; the phone writes on, and the
        // restored copy learns that its key wrote elsewhere.
        try FileManager.default.copyItem(at: directory.path("phone"), to: directory.path("restored"))
        let restored = BinaryRunner(store: directory.path("restored"))
        try phone.ok("player", "add", "Ben")
        let bundle = directory.path("phone.hzb").path
        try phone.ok("export", "--out", bundle)
        #expect(try restored.run("import", bundle).status == 0)
        #expect(try restored.run("player", "add", "Zed").status == 1)
        #expect(try restored.ok("device", "continue").hasPrefix("this store continues as device "))
        try restored.ok("player", "add", "Zed")

        // Over TCP: the restored phone dials the organizer's serve under epoch 1.
        let server = try laptop.start(["serve", "--listen", "127.0.0.1:0", "--log-level", "notice"])
        defer {
            kill(server.processIdentifier, SIGINT)
            server.waitUntilExit()
        }
        let served = OutputCollector(server.standardOutput as! Pipe)
        let log = OutputCollector(server.standardError as! Pipe)
        #expect(served.wait { $0.contains("listening on") }, "serve did not start: \(served.output)")
        let address = "127.0.0.1:" + (served.output.split(separator: ":").last?.split(separator: "\n").first ?? "")
        let dial = try restored.run(["sync", "--peer", address])
        #expect(dial.status == 0, "\(dial) serve's log: \(log.output)")
        #expect(try players(laptop).contains("Zed"))

        // Through the folder: the friend reads the restored phone's files, and it reads theirs.
        try friend.ok("player", "add", "Fran")
        for cli in [restored, friend, phone, restored, friend, phone] { try cli.ok("sync", "--folder", folder, quiet: false) }
        #expect(try players(friend).contains("Zed"))
        #expect(try players(restored).contains("Fran") && players(restored).contains("Ben"))

        // The organizer's next rekey, written once it knows the new key, reaches it.
        try laptop.ok("sync", "--folder", folder, quiet: false)
        #expect(try laptop.ok("group", "rekey").hasPrefix("the group key is now epoch 2"))
        try laptop.ok("player", "add", "Vic")
        #expect(try restored.ok("sync", "--peer", address).hasPrefix("synced with "), "once on epoch 1, which the rekey was sealed to")
        #expect(try restored.ok("sync", "--peer", address).hasPrefix("synced with "), "then on epoch 2")
        for cli in [laptop, friend, phone, restored, laptop, friend, phone, restored] {
            try cli.ok("sync", "--folder", folder, quiet: false)
        }
        #expect(try players(restored).contains("Vic"))
        let digest = try laptop.digest()
        for cli in [friend, phone, restored] { #expect(try cli.digest() == digest) }
    }

    /// A lost phone that continues under a new key before its removal reaches it: the
    /// organizer's rekey leaves the new key out, the new key is refused over TCP, and its files
    /// in the folder are not read.
    @Test func aRemovedDevicesSuccessorGetsNothing() throws {
        let laptop = try device("laptop", owner: "Olga")
        let lost = try device("lost", owner: "Lou")
        try laptop.ok("group", "create")
        try lost.join(laptop)
        for _ in 0..<2 { for cli in [laptop, lost] { try cli.ok("sync", "--folder", folder, quiet: false) } }
        let whoami = try JSONSerialization.jsonObject(with: Data(try lost.ok("whoami", "--json").utf8)) as? [String: Any]
        let lostID = try #require(whoami?["replica"] as? String)
        try lost.ok("device", "continue")
        try lost.ok("sync", "--folder", folder, quiet: false)
        try laptop.ok("sync", "--folder", folder, quiet: false)  // the organizer holds the succession
        #expect(try laptop.ok("group", "remove", lostID).hasSuffix("the group key is now epoch 1"))
        let rekey = try laptop.ok("group", "rekey")
        #expect(rekey.hasPrefix("the group key is now epoch 2, sealed to 1 devices"), "\(rekey)")

        let server = try laptop.start(["serve", "--listen", "127.0.0.1:0", "--log-level", "notice"])
        defer {
            kill(server.processIdentifier, SIGINT)
            server.waitUntilExit()
        }
        let served = OutputCollector(server.standardOutput as! Pipe)
        #expect(served.wait { $0.contains("listening on") }, "serve did not start: \(served.output)")
        let address = "127.0.0.1:" + (served.output.split(separator: ":").last?.split(separator: "\n").first ?? "")
        #expect(try lost.run(["sync", "--peer", address]).status == 1)
        try laptop.ok("player", "add", "Vic")
        try laptop.ok("sync", "--folder", folder, quiet: false)
        try lost.ok("sync", "--folder", folder, quiet: false)
        #expect(try !players(lost).contains("Vic"))
        // Its files are not read: it is removed with the device it continued.
        try lost.ok("player", "add", "Eve")
        try lost.ok("sync", "--folder", folder, quiet: false)
        let organizerSync = try laptop.run(["sync", "--folder", folder])
        #expect(organizerSync.stderr.contains("which was removed from the group; it is not read"), "\(organizerSync)")
        #expect(try !players(laptop).contains("Eve"))
    }
}
