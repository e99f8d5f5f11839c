import Foundation
import HyzerTestSupport
import Testing

/// The lost phone, end to end through the binary (docs/security.md, "Removing a member" and
/// "Re-keying"): three devices share a folder and a `serve`; the organizer removes the lost
/// phone and rekeys; the others keep syncing through the folder and over TCP; the phone's new
/// ops and new connections are refused, and it reads nothing written after the rekey.
@Suite struct LostPhoneTests {
    let directory = TemporaryDirectory("lost-phone")
    var folder: String { directory.path("shared").path }

    func device(_ name: String, owner: String) throws -> BinaryRunner {
        try BinaryRunner.phone(name, owner: owner, in: directory)
    }

    func players(_ cli: BinaryRunner) throws -> [String] { try cli.playerNames() }

    func replicaID(_ cli: BinaryRunner) throws -> String {
        let whoami = try JSONSerialization.jsonObject(with: Data(try cli.ok("whoami", "--json").utf8)) as? [String: Any]
        return try #require(whoami?["replica"] as? String)
    }

    @Test func aLostPhoneIsRemovedAndTheOthersSyncOnWithoutIt() throws {
        let laptop = try device("laptop", owner: "Olga")
        let phone = try device("lost-phone", owner: "Pat")
        let friend = try device("friend", owner: "Fay")
        try laptop.ok("group", "create")
        let token = Array(try laptop.ok("group", "invite", "--uses", "2").utf8)
        for cli in [phone, friend] { #expect(try cli.run(["group", "join", "--token-file", "-"], input: token).status == 0) }
        for _ in 0..<2 { for cli in [laptop, phone, friend] { try cli.ok("sync", "--folder", folder, quiet: false) } }
        let phoneID = try replicaID(phone)

        let server = try laptop.start(["serve", "--listen", "127.0.0.1:0", "--log-level", "notice"])
        defer {
            kill(server.processIdentifier, SIGINT)
            server.waitUntilExit()
        }
        let served = OutputCollector(server.standardOutput as! Pipe)
        let log = OutputCollector(server.standardError as! Pipe)
        #expect(served.wait { $0.contains("listening on") }, "serve did not start: \(served.output)")
        let address = "127.0.0.1:" + (served.output.split(separator: ":").last?.split(separator: "\n").first ?? "")
        let first = try phone.run(["sync", "--peer", address])
        #expect(first.status == 0, "\(first) serve's log: \(log.output)")

        // Only the organizer may remove; it removes the lost phone and the key moves to epoch 1.
        let refused = try friend.run(["group", "remove", "lost-phone"])
        #expect(refused.status == 1)
        #expect(
            refused.stderr
                == "error: only the group's organizer (the device that ran `hyzer-peer group create`) may remove a member or rekey the group; run it there (a group created before groups had organizers has none: create a new one)\n"
        )
        #expect(
            try laptop.ok("group", "remove", "lost-phone")
                == "removed device \(phoneID) (its ops up to 2 still count); the group key is now epoch 1")
        try laptop.ok("player", "add", "Vic")

        // The phone, not knowing, writes on and dials: its new connection is refused, and the
        // laptop shows it the organizer's signed removal.
        try phone.ok("player", "add", "Mallory")
        let dial = try phone.run(["sync", "--peer", address])
        #expect(dial.status == 1)
        #expect(
            dial.stderr
                == "error: sync with \(address) failed: the group's organizer removed this device from the group (the peer showed the organizer's signed removal): it can join again only as a new device, with a new invitation; nothing partial was kept\n",
            "\(dial)")
        #expect(
            log.wait { $0.contains("the peer, device \(phoneID.prefix(12)), was removed from the group") },
            "serve's log: \(log.output) / \(served.output)")

        // Through the folder: the friend learns the new key from the organizer's rekey bundle and
        // reads on; the phone learns that it was removed, and reads nothing after the rekey.
        try phone.ok("sync", "--folder", folder, quiet: false)  // writes Mallory under the old key
        let organizerSync = try laptop.run(["sync", "--folder", folder])
        #expect(organizerSync.status == 0)
        #expect(organizerSync.stderr.hasPrefix("warning: hyzer/"), "\(organizerSync)")
        #expect(
            organizerSync.stderr.hasSuffix(
                ".hzb: it lies in the directory of device \(phoneID.prefix(12)), which was removed from the group; it is not read\n"),
            "\(organizerSync)")
        #expect(try players(laptop) == ["Fay", "Olga", "Pat", "Vic"])
        try friend.ok("sync", "--folder", folder, quiet: false)
        #expect(try players(friend) == ["Fay", "Olga", "Pat", "Vic"])
        try phone.ok("sync", "--folder", folder, quiet: false)
        #expect(try players(phone) == ["Fay", "Olga", "Pat"], "nothing after the rekey, and its own late op counts nowhere, not even here")
        let write = try phone.run(["player", "add", "Eve"])
        #expect(write.status == 1)
        #expect(
            write.stderr
                == "error: this device was removed from its group by the organizer (its ops up to 2 still count); it can no longer write. Ask a member for a new invite and join with a new store (`hyzer-peer init --store DIR`)\n"
        )

        // The others keep syncing over TCP under the new key, and through the folder.
        try friend.ok("player", "add", "Zed")
        #expect(try friend.ok("sync", "--peer", address).hasPrefix("synced with "))
        #expect(try players(laptop) == ["Fay", "Olga", "Pat", "Vic", "Zed"])
        try laptop.ok("player", "add", "Yul")
        try laptop.ok("sync", "--folder", folder, quiet: false)
        try friend.ok("sync", "--folder", folder, quiet: false)
        #expect(try players(friend) == ["Fay", "Olga", "Pat", "Vic", "Yul", "Zed"])
        #expect(try laptop.digest() == friend.digest())
        let again = try phone.run(["sync", "--peer", address])
        #expect(again.status == 1, "\(again)")
        try phone.ok("sync", "--folder", folder, quiet: false)
        #expect(try players(phone) == ["Fay", "Olga", "Pat"])
    }

    /// Attack (a) of docs/security.md, "Membership": a phone that ran `device continue` and was
    /// then removed opened every later epoch with its predecessor key, which the rekey still
    /// sealed to; it read the rounds played after its removal.
    @Test func aLostPhoneThatContinuedReadsNothingAfterItsRemoval() throws {
        let laptop = try device("laptop", owner: "Olga")
        let phone = try device("lost-phone", owner: "Pat")
        let friend = try device("friend", owner: "Fay")
        try laptop.ok("group", "create")
        try phone.join(laptop)
        try friend.join(laptop)
        for _ in 0..<2 { for cli in [laptop, phone, friend] { try cli.ok("sync", "--folder", folder, quiet: false) } }
        let predecessor = try replicaID(phone)
        try phone.ok("device", "continue")
        let successor = try replicaID(phone)
        for cli in [phone, laptop] { try cli.ok("sync", "--folder", folder, quiet: false) }
        #expect(try laptop.ok("group", "remove", String(successor.prefix(12))).hasSuffix("the group key is now epoch 1"))
        let members = try #require(
            try JSONSerialization.jsonObject(with: Data(try laptop.ok("group", "members", "--json").utf8)) as? [[String: Any]])
        let removed = Set(members.filter { $0["removed"] as? Bool == true }.compactMap { $0["id"] as? String })
        #expect(removed == [predecessor, successor], "every key of the lineage is removed")
        #expect(members.filter { $0["removed"] as? Bool == false }.count == 2, "the next rekey goes to the laptop and the friend")
        try laptop.ok("player", "add", "Vic")
        try laptop.ok("sync", "--folder", folder, quiet: false)
        try friend.ok("sync", "--folder", folder, quiet: false)
        #expect(try players(friend).contains("Vic"))
        try phone.ok("sync", "--folder", folder, quiet: false)
        #expect(!(try players(phone).contains("Vic")), "the removed store opens no later epoch with its predecessor key")
    }

    /// After a rekey, `sync --peer` reaches a member the rekey has not reached yet: that member
    /// closes on the new epoch's hello, and the dialer tries the older one (docs/sync-protocol.md).
    @Test func theOrganizerReachesAMemberItsRekeyHasNotReached() throws {
        let laptop = try device("laptop", owner: "Olga")
        let friend = try device("friend", owner: "Fay")
        try laptop.ok("group", "create")
        try friend.join(laptop)
        let server = try friend.start(["serve", "--listen", "127.0.0.1:0", "--log-level", "notice"])
        defer {
            kill(server.processIdentifier, SIGINT)
            server.waitUntilExit()
        }
        let served = OutputCollector(server.standardOutput as! Pipe)
        #expect(served.wait { $0.contains("listening on") }, "serve did not start: \(served.output)")
        let address = "127.0.0.1:" + (served.output.split(separator: ":").last?.split(separator: "\n").first ?? "")
        try laptop.ok("sync", "--peer", address)
        #expect(try laptop.ok("group", "rekey").hasPrefix("the group key is now epoch 1"))
        #expect(try laptop.ok("sync", "--peer", address).hasPrefix("synced with "))
        #expect(try laptop.digest() == friend.digest(), "the friend received the rekey")
        #expect(try laptop.ok("sync", "--peer", address).hasPrefix("synced with "), "and now speaks the new epoch")
    }
}
