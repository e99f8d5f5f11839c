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

    @Test func joinsFromStandardInputAndFromAFile() throws {
        let organizer = try replica("organizer")
        let group = try organizer.ok("group", "create")
        let token = try organizer.ok("group", "invite")

        let piped = try replica("piped")
        let result = try piped.run(["group", "join", "--token-file", "-"], input: Array((token + "\n").utf8))
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
        #expect(result.output == "joined group \(group)")

        let filed = try replica("filed")
        let file = directory.path("token.txt")
        try Data((token + "\n").utf8).write(to: file)
        #expect(try filed.ok("group", "join", "--token-file", file.path) == "joined group \(group)")
        #expect(try filed.ok("whoami", "--json").contains(group))
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
