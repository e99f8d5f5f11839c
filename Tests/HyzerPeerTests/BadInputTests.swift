import Foundation
import HyzerTestSupport
import Testing

/// Every bad input through the binary: one sentence on stderr, exit status 1, store unchanged.
@Suite struct BadInputTests {
    let directory = TemporaryDirectory("bad-input")
    var cli: BinaryRunner { BinaryRunner(store: directory.path("phone")) }

    /// A store with a round on Morley Field for Ann (the owner) and Ben; returns the round id.
    func prepare() throws -> String {
        try cli.run("init", "--name", "phone", "--owner", "Ann")
        try cli.run("player", "add", "Ben")
        try cli.run("player", "add", "Bea")
        return try cli.run("round", "start", "--course", "Morley Field", "--players", "Ann,Ben").output
    }

    static let cases: [(arguments: [String], error: String)] = [
        (
            ["score", "latest", "--player", "Zed", "--hole", "1", "--strokes", "3"],
            "no participant matches 'Zed'; the round's participants are listed by `hyzer-peer round show ROUND`"
        ),
        (
            ["score", "latest", "--player", "Ann", "--hole", "19", "--strokes", "3"],
            "hole 19 does not exist: this course has holes 1 to 18"
        ),
        (
            ["score", "latest", "--player", "Ann", "--hole", "0", "--strokes", "3"],
            "hole 0 does not exist: this course has holes 1 to 18"
        ),
        (
            ["score", "latest", "--player", "Ann", "--hole", "1", "--strokes", "0"],
            "0 strokes is impossible: a hole's score is 1 to 10 strokes"
        ),
        (
            ["score", "latest", "--player", "Ann", "--hole", "1", "--strokes", "11"],
            "11 strokes is impossible: a hole's score is 1 to 10 strokes"
        ),
        (
            ["score", "nosuchround", "--player", "Ann", "--hole", "1", "--strokes", "3"],
            "no round matches 'nosuchround'; list them with `hyzer-peer round list`"
        ),
        (
            ["round", "start", "--course", "Nowhere", "--players", "Ann"],
            "no course matches 'Nowhere'; list them with `hyzer-peer course list`"
        ),
        (
            ["round", "start", "--course", "Morley Field", "--players", "Ann,Carl"],
            "no player matches 'Carl'; list them with `hyzer-peer player list`"
        ),
        (
            ["round", "start", "--course", "Morley Field", "--players", "Ann,Ann"],
            "Ann is listed twice; name each player once"
        ),
        (
            ["round", "start", "--course", "Morley Field", "--players", "Ann", "--guest", "Dave", "--guest", "Dave"],
            "the guest name 'Dave' is given twice; give each guest a distinct name, like --guest 'Dave K'"
        ),
        (
            ["round", "start", "--course", "Morley Field", "--players", "Ann", "--guest", "Zoë", "--guest", "ZOE"],
            "the guest name 'ZOE' is given twice; give each guest a distinct name, like --guest 'ZOE K'"
        ),
        (
            ["round", "start", "--course", "Morley Field", "--players", "Ann,Ben", "--guest", "ben"],
            "the guest name 'ben' is the name of player Ben in this round; give the guest a distinct name, like --guest 'ben K'"
        ),
        (
            ["correct", "ffffffff", "--strokes", "3"],
            "no event matches 'ffffffff'; use the event id that `hyzer-peer score` printed (or see `hyzer-peer discrepancies ROUND`)"
        ),
        (
            ["course", "add", "Tiny", "--pars", "3,x,3"],
            "'x' in --pars is not a number; give one par per hole, like --pars 3,3,4"
        ),
        (
            ["course", "add", "Tiny", "--pars", "3,12,3"],
            "par 12 is impossible: a hole's par is 2 to 7"
        ),
        (
            ["course", "set-par", "Morley Field", "19", "3"],
            "hole 19 does not exist: this course has holes 1 to 18"
        ),
        (
            ["player", "add", ""],
            "a player name cannot be empty"
        ),
        (
            ["init", "--name", "again"],
            "STORE already holds a hyzer-peer store; choose another directory with --store, or use the existing one"
        ),
    ]

    @Test(arguments: cases)
    func refusedWithOneSentenceAndNothingChanged(arguments: [String], error: String) throws {
        _ = try prepare()
        let before = try cli.digest()
        let result = try cli.run(arguments)
        let expected = "error: " + error.replacingOccurrences(of: "STORE", with: cli.store.path) + "\n"
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr == expected)
        #expect(result.stdout == "")
        #expect(try cli.digest() == before)
    }

    @Test func ambiguousNamesAreRefused() throws {
        _ = try prepare()
        let first = try cli.run("player", "add", "Bo").output
        let second = try cli.run("player", "add", "Bo").output
        let before = try cli.digest()
        let result = try cli.run("round", "start", "--course", "Morley Field", "--players", "Ann,Bo")
        #expect(result.status == 1)
        let listed = [first, second].sorted().map { String($0.prefix(8)) }.joined(separator: ", ")
        #expect(result.stderr == "error: 'Bo' matches several players (\(listed)); use a longer id prefix\n")
        #expect(try cli.digest() == before)
        // A unique id prefix picks one of them.
        #expect(try cli.run("round", "start", "--course", "Morley Field", "--players", "Ann," + String(first.prefix(12))).status == 0)
    }

    @Test func scoringAFinishedRoundIsRefused() throws {
        let round = try prepare()
        #expect(try cli.run("round", "finish", round, "--force").status == 0)
        let before = try cli.digest()
        let result = try cli.run("score", round, "--player", "Ann", "--hole", "1", "--strokes", "3")
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "error: round \(round) is completed; scores can no longer change (the organizer may still resolve discrepancies)\n")
        #expect(try cli.digest() == before)
    }

    @Test func aDirectoryThatIsNotAStore() throws {
        let empty = directory.path("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let result = try BinaryRunner(store: empty).run("status")
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "error: \(empty.path) is not a hyzer-peer store; create one with `hyzer-peer init --name NAME --store \(empty.path)`\n")
    }

    @Test func aCorruptedDatabaseFile() throws {
        _ = try prepare()
        let database = cli.store.appendingPathComponent("replica.sqlite")
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database.path + suffix) }
        try Data(repeating: 0x5a, count: 8192).write(to: database)
        let result = try cli.run("standings", "latest")
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("error: the store at \(cli.store.path) is damaged ("), "\(result)")
        #expect(result.stderr.hasSuffix("); restore it from a backup or sync a new replica from a peer\n"))
    }

    @Test func usageErrorsExitWithArgumentParsersStatus() throws {
        _ = try prepare()
        let result = try cli.run("score", "latest", "--player", "Ann", "--hole", "one", "--strokes", "3")
        #expect(result.status == 64)
        #expect(result.stderr.contains("--hole"))
    }

    /// Discovery's options are checked before anything is opened or advertised (no test here
    /// reaches a responder: mDNS stays inside the nettest's namespaces).
    @Test func discoveryOptionsThatDoNotAddUpAreUsageErrors() throws {
        _ = try prepare()
        let cases: [([String], String)] = [
            (["serve"], "Error: give --listen HOST:PORT, or --discover to listen on every address"),
            (["sync"], "Error: give one of --folder DIR, --bucket s3://BUCKET/PREFIX, --peer HOST:PORT or --discover"),
            (
                ["sync", "--discover", "--peer", "127.0.0.1:9"],
                "Error: give one of --folder DIR, --bucket s3://BUCKET/PREFIX, --peer HOST:PORT or --discover"
            ),
            (["sync", "--discover", "--for", "0"], "Error: --for takes 1 to 3600 seconds"),
        ]
        for (arguments, error) in cases {
            let result = try cli.run(arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.stderr.hasPrefix(error + "\n"), "\(arguments): \(result.stderr)")
        }
    }
}
