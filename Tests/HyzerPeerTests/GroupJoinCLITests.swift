import Foundation
import HyzerTestSupport
import Testing

/// `group join` takes the token from standard input or a file, so it stays out of `ps`
/// (docs/cli.md, docs/security.md).
@Suite struct GroupJoinCLITests {
    let directory = TemporaryDirectory("group-join")

    func replica(_ name: String) throws -> BinaryRunner {
        let cli = BinaryRunner(store: directory.path(name))
        try cli.ok("init", "--name", name, "--device", "phone", quiet: false)
        return cli
    }

    /// Starts `serve` on `cli`'s store; returns the process and its address.
    func serve(_ cli: BinaryRunner) throws -> (Process, String) {
        let server = try cli.start(["serve", "--listen", "127.0.0.1:0", "--log-level", "notice"])
        let output = OutputCollector(server.standardOutput as! Pipe)
        #expect(output.wait { $0.contains("listening on") }, "serve did not start: \(output.output)")
        return (server, "127.0.0.1:" + (output.output.split(separator: ":").last?.split(separator: "\n").first ?? ""))
    }

    /// docs/security.md, "Invitations": a token read from standard input or a file is accepted,
    /// and the device joins at its next sync with a member, over TCP or through the folder.
    @Test func joinsFromStandardInputAndFromAFileAtTheNextSync() throws {
        let organizer = try replica("organizer")
        let group = try organizer.ok("group", "create")
        let token = try organizer.ok("group", "invite", "--uses", "2")
        #expect(token.hasPrefix("hyzer3-") && token.count == 111)
        let accepted =
            "invitation to group \(group) accepted; this device joins at its next sync with a member: `hyzer-peer sync --peer HOST:PORT`, `hyzer-peer sync --folder DIR`, or `hyzer-peer serve --discover` on the LAN"

        let piped = try replica("piped")
        let result = try piped.run(["group", "join", "--token-file", "-"], input: Array((token + "\n").utf8))
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
        #expect(result.output == accepted)
        #expect(!(try piped.ok("whoami", "--json").contains(group)), "not a member before a member admits it")
        let early = try piped.run(["serve", "--listen", "127.0.0.1:0"])
        #expect(early.status == 1)
        #expect(
            early.stderr
                == "error: this device accepted an invitation to group \(group), but no member has admitted it yet; run `hyzer-peer sync --peer HOST:PORT` or `hyzer-peer sync --folder DIR` with a member first\n"
        )
        let (server, address) = try serve(organizer)
        defer {
            kill(server.processIdentifier, SIGINT)
            server.waitUntilExit()
        }
        let synced = try piped.ok("sync", "--peer", address).split(separator: "\n")
        #expect(synced.first == "joined group \(group): a member admitted this device")
        #expect(synced.last?.hasPrefix("synced with ") == true)
        #expect(try piped.ok("whoami", "--json").contains(group))

        let filed = try replica("filed")
        let file = directory.path("token.txt")
        try Data((token + "\n").utf8).write(to: file)
        #expect(try filed.ok("group", "join", "--token-file", file.path) == accepted)
        let folder = directory.path("shared").path
        #expect(
            try filed.ok("sync", "--folder", folder)
                == "asked to join group \(group) through the folder; a member admits this device at its next folder sync (or `serve --folder`): run this again after that"
        )
        try organizer.ok("sync", "--folder", folder)
        #expect(try filed.ok("sync", "--folder", folder).hasPrefix("joined group \(group): a member admitted this device\n1 other members"))
        try organizer.ok("sync", "--folder", folder)
        #expect(try filed.digest() == organizer.digest())
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder + "/hyzer/\(group)/joins").isEmpty,
            "the admitted device removes its request and the reply")
    }

    /// An invitation admits as many devices as it says, then refuses with a reason the device
    /// can trust (it is authenticated with the invitation key); tokens of the old kind, which
    /// held the group secret, are refused with what to do.
    @Test func anInvitationIsUsedUpAndOldTokensAreRefused() throws {
        let organizer = try replica("organizer")
        let group = try organizer.ok("group", "create")
        let token = Array(try organizer.ok("group", "invite", "--uses", "1", "--expires", "30m").utf8)
        let (server, address) = try serve(organizer)
        defer {
            kill(server.processIdentifier, SIGINT)
            server.waitUntilExit()
        }
        let first = try replica("first")
        let second = try replica("second")
        for cli in [first, second] { #expect(try cli.run(["group", "join", "--token-file", "-"], input: token).status == 0) }
        #expect(try first.ok("sync", "--peer", address).hasPrefix("joined group \(group)"))
        let refused = try second.run(["sync", "--peer", address])
        #expect(refused.status == 1)
        #expect(
            refused.stderr
                == "error: a member refused this device: the invitation was already used by 1 device, all it allows; ask a member for a new one (`hyzer-peer group invite`)\n"
        )
        #expect(!(try second.ok("whoami", "--json").contains(group)))
        // The admitted device asking again (its answer lost) is answered again, not counted again.
        #expect(try first.ok("sync", "--peer", address).hasPrefix("synced with "))

        for bad in ["0d", "2y", "400d", "d", "1.5h"] {
            let invite = try organizer.run(["group", "invite", "--expires", bad])
            #expect(
                invite.status != 0 && invite.stderr.contains("--expires takes minutes, hours or days up to a year"), "\(bad): \(invite)")
        }
        let old = try second.run(["group", "join", "hyzer1-" + String(repeating: "ab", count: 52)])
        #expect(old.status == 1)
        #expect(
            old.stderr
                == "error: that token is from an older hyzer-peer and holds the group secret itself; ask a member for a new one (`hyzer-peer group invite`)\n"
        )
    }

    @Test func refusesTwoTokensNoTokenAndOversizedInput() throws {
        let cli = try replica("lonely")
        let both = try cli.run(["group", "join", "hyzer1-00", "--token-file", "-"])
        #expect(both.status != 0)
        #expect(both.stderr.contains("give the token either as an argument or with --token-file PATH (- for standard input), not both"))
        let neither = try cli.run(["group", "join"])
        #expect(neither.status != 0)
        #expect(neither.stderr.contains("not both"))
        let flood = try cli.run(["group", "join", "--token-file", "-"], input: [UInt8](repeating: 0x61, count: 5_000))
        #expect(flood.status == 1)
        #expect(flood.stderr == "error: standard input holds more than a token; pipe in only the line `hyzer-peer group invite` printed\n")
        let garbage = try cli.run(["group", "join", "--token-file", "-"], input: Array("not a token\n".utf8))
        #expect(garbage.status == 1)
        #expect(garbage.stderr.contains("that is not a hyzer-peer invite token"))
        #expect(!(try cli.ok("whoami", "--json").contains(#""group""#)), "a refused join changes nothing")
    }
}
