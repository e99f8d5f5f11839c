import Foundation
import HyzerBench
import HyzerSync
import HyzerTestSupport
import Testing

/// `sync --bucket` (docs/bucket-sync.md), run as separate processes against a real SeaweedFS on
/// loopback: a device joins by token through the bucket and the group converges; credentials
/// come from the environment only, and wrong ones give one sentence and exit 1.
@Suite struct BucketSyncCLITests {
    let directory = TemporaryDirectory("bucket-sync")

    static let environment = [
        "AWS_ACCESS_KEY_ID": SeaweedFS.accessKey, "AWS_SECRET_ACCESS_KEY": SeaweedFS.secretKey, "AWS_SESSION_TOKEN": "",
        "AWS_PROFILE": "", "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent", "AWS_REGION": "us-east-1",
    ]

    /// A store whose bucket answers signed requests.
    static func startStore() throws -> SeaweedFS { try SeaweedFS.ready() }

    @Test(.enabled(if: SeaweedFS.executable != nil || SeaweedFS.underCI, Comment(rawValue: SeaweedFS.install)))
    func aDeviceJoinsThroughTheBucketAndTheGroupConverges() throws {
        let store = try Self.startStore()
        let bucket = ["--bucket", "s3://\(SeaweedFS.bucket)/cli-\(UUID().uuidString.prefix(8).lowercased())", "--endpoint", store.endpoint]
        let organizer = BinaryRunner(store: directory.path("organizer"))
        let phone = BinaryRunner(store: directory.path("phone"))
        try organizer.ok("init", "--name", "clubhouse", quiet: false)
        try phone.ok("init", "--name", "phone", "--owner", "Ann", quiet: false)
        try organizer.ok("group", "create", quiet: false)
        let token = try organizer.ok("group", "invite", "--uses", "1")
        #expect(try phone.run(["group", "join", "--token-file", "-"], input: Array(token.utf8)).status == 0)
        try organizer.ok("player", "add", "Ben", quiet: false)

        let asked = try phone.ok(["sync"] + bucket, environment: Self.environment)
        #expect(
            asked.hasPrefix("asked to join group ")
                && asked.hasSuffix(
                    " through the bucket; a member admits this device at its next bucket sync (or `serve --bucket`): run this again after that"
                ))
        try organizer.ok(["sync"] + bucket, environment: Self.environment)
        #expect(try phone.ok(["sync"] + bucket, environment: Self.environment).hasPrefix("joined group "))
        try phone.ok("player", "add", "Cat", quiet: false)
        for cli in [phone, organizer, phone] { try cli.ok(["sync"] + bucket, environment: Self.environment) }
        #expect(try phone.digest() == organizer.digest())
        #expect(try organizer.playerNames().contains("Cat") && phone.playerNames().contains("Ben"))

        // Wrong credentials: one sentence saying what to check, exit 1, nothing changed.
        let before = try phone.digest()
        var wrong = Self.environment
        wrong["AWS_SECRET_ACCESS_KEY"] = "not-the-secret"
        let denied = try phone.run(["sync"] + bucket, environment: wrong)
        #expect(denied.status == 1)
        #expect(
            denied.stderr
                == "error: the bucket \(SeaweedFS.bucket) refused these credentials (403): check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY "
                + "(or the profile) and that they may list, read, write and delete in the bucket\n")
        #expect(!denied.stderr.contains("not-the-secret") && !denied.stdout.contains("not-the-secret"))
        #expect(try phone.digest() == before)

        // No credentials anywhere: one sentence naming where they are looked for.
        var none = Self.environment
        none["AWS_ACCESS_KEY_ID"] = ""
        none["AWS_SECRET_ACCESS_KEY"] = ""
        let missing = try phone.run(["sync"] + bucket, environment: none)
        #expect(missing.status == 1)
        #expect(
            missing.stderr
                == "error: no bucket credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or write profile [default] into /nonexistent\n"
        )
    }

    /// `serve --bucket` syncs the bucket on its schedule: a score a phone syncs into the bucket
    /// reaches the serving device without anyone running `sync` there.
    @Test(.enabled(if: SeaweedFS.executable != nil || SeaweedFS.underCI, Comment(rawValue: SeaweedFS.install)))
    func serveSyncsTheBucketOnASchedule() throws {
        let store = try Self.startStore()
        let bucket = [
            "--bucket", "s3://\(SeaweedFS.bucket)/serve-\(UUID().uuidString.prefix(8).lowercased())", "--endpoint", store.endpoint,
        ]
        let clubhouse = BinaryRunner(store: directory.path("clubhouse"))
        let phone = BinaryRunner(store: directory.path("phone"))
        try clubhouse.ok("init", "--name", "clubhouse", quiet: false)
        try phone.ok("init", "--name", "phone", "--owner", "Ann", quiet: false)
        try clubhouse.ok("group", "create", quiet: false)
        try phone.join(clubhouse)
        let server = try clubhouse.start(
            ["serve", "--listen", "127.0.0.1:0", "--folder-interval", "1"] + bucket, environment: Self.environment)
        let output = OutputCollector(server.standardOutput as! Pipe)
        _ = OutputCollector(server.standardError as! Pipe)
        defer {
            kill(server.processIdentifier, SIGINT)
            server.waitUntilExit()
        }
        #expect(output.wait { $0.contains("listening on ") }, "serve did not start: \(output.output)")
        try phone.ok("player", "add", "Dana", quiet: false)
        try phone.ok(["sync"] + bucket, environment: Self.environment)
        let deadline = Date().addingTimeInterval(20)
        while (try? clubhouse.playerNames().contains("Dana")) != true, Date() < deadline { Thread.sleep(forTimeInterval: 0.25) }
        #expect(try clubhouse.playerNames().contains("Dana"), "the phone's player never reached the serving device through the bucket")
    }

    /// A store that says this device's clock is skewed (RequestTimeTooSkewed, answered by a
    /// `FaultProxy` in front of the store): one sentence saying what to do, exit 1, no retry.
    @Test(.enabled(if: SeaweedFS.executable != nil || SeaweedFS.underCI, Comment(rawValue: SeaweedFS.install)))
    func aSkewedClockGivesOneSentence() throws {
        let store = try Self.startStore()
        let proxy = try FaultProxy(upstreamPort: store.port)
        let clubhouse = BinaryRunner(store: directory.path("clubhouse"))
        try clubhouse.ok("init", "--name", "clubhouse", quiet: false)
        try clubhouse.ok("group", "create", quiet: false)
        proxy.inject(.clockSkewed, times: 10)
        let bucket = ["--bucket", "s3://\(SeaweedFS.bucket)/skewed", "--endpoint", proxy.endpoint]
        let skewed = try clubhouse.run(["sync"] + bucket, environment: Self.environment)
        #expect(skewed.status == 1)
        #expect(
            skewed.stderr
                == "error: the bucket says this device's clock is wrong (RequestTimeTooSkewed): set the clock right, within 15 minutes, "
                + "and sync again\n")
        #expect(proxy.faultsServed == 1, "a skewed clock is not tried again")
    }

    /// `serve --publish`, as a process: the read-only pages as static files in the bucket, and a
    /// score another process records on the served store reaches the published leaderboard,
    /// read with a plain unsigned GET, within 3 s of its commit.
    @Test(.enabled(if: SeaweedFS.executable != nil || SeaweedFS.underCI, Comment(rawValue: SeaweedFS.install)))
    func servePublishesTheLeaderboardToTheBucket() async throws {
        let store = try Self.startStore()
        let prefix = "\(SeaweedFS.publicPrefix)/serve-\(UUID().uuidString.prefix(8).lowercased())"
        let clubhouse = BinaryRunner(store: directory.path("clubhouse"))
        try clubhouse.ok("init", "--name", "clubhouse", "--owner", "Ann", quiet: false)
        try clubhouse.ok("group", "create", quiet: false)
        for name in ["Ben", "Cat"] { try clubhouse.ok("player", "add", name, quiet: false) }
        let round = try clubhouse.ok("round", "start", "--course", "Morley Field", "--players", "Ann,Ben,Cat", quiet: false).lowercased()
        let (server, page, log) = try Self.servePublishing(clubhouse, store: store, prefix: prefix, round: round)
        defer {
            kill(server.processIdentifier, SIGINT)
            server.waitUntilExit()
        }
        let first = try await Self.poll(store, page) { $0.status == 200 }
        #expect(first.status == 200, "the leaderboard was not published: \(first.status) \(first.head) \(first.body) \(log.output)")

        // Timed from the moment the other process has committed the score.
        try clubhouse.ok("score", round, "--player", "Cat", "--hole", "1", "--strokes", "2", quiet: false)
        let recorded = Date()
        let after = try await Self.poll(store, page, seconds: 3) { $0.body.contains("tier-underPar\">-1<") }
        #expect(after.body.contains("tier-underPar\">-1<"), "not published within 3 s: \(log.output)")
        #expect(Date().timeIntervalSince(recorded) < 3)
        let index = try await Self.poll(store, "/\(SeaweedFS.bucket)/\(prefix)/index.html") { $0.status == 200 }
        #expect(index.body.contains("href=\"round-\(round).html\""))
    }

    /// Where `serve --publish` may not go: beside its flags' rules, a prefix holding the group's objects.
    @Test func servePublishRefusesAPrefixHoldingTheGroupsObjects() throws {
        let clubhouse = BinaryRunner(store: directory.path("clubhouse"))
        try clubhouse.ok("init", "--name", "clubhouse", quiet: false)
        try clubhouse.ok("group", "create", quiet: false)
        let over = try clubhouse.run(
            [
                "serve", "--listen", "127.0.0.1:0", "--bucket", "s3://league/2026", "--publish", "s3://league", "--endpoint",
                "http://127.0.0.1:9",
            ],
            environment: Self.environment)
        #expect(over.status == 1)
        #expect(
            over.stderr
                == "error: --publish s3://league holds the group's objects of --bucket, and whoever reads the pages could read them: "
                + "publish to a prefix of its own\n")
        let stray = try clubhouse.run(
            ["serve", "--listen", "127.0.0.1:0", "--endpoint", "http://127.0.0.1:9"], environment: Self.environment)
        #expect(stray.status == 64)
        #expect(
            stray.stderr.contains("--endpoint, --region and --profile go with --bucket or --publish s3://BUCKET/PREFIX"), "\(stray.stderr)")
    }

    /// `serve --publish` on the clubhouse's store, and the unsigned path of the round's published page.
    /// (Its log, for a failing test's message.)
    static func servePublishing(_ cli: BinaryRunner, store: SeaweedFS, prefix: String, round: String) throws
        -> (server: Process, page: String, log: OutputCollector)
    {
        let server = try cli.start(
            [
                "serve", "--listen", "127.0.0.1:0", "--publish", "s3://\(SeaweedFS.bucket)/\(prefix)", "--endpoint", store.endpoint,
                "--log-level", "debug",
            ],
            environment: environment)
        let output = OutputCollector(server.standardOutput as! Pipe)
        let log = OutputCollector(server.standardError as! Pipe)
        #expect(output.wait { $0.contains("listening on ") }, "serve did not start: \(output.output)")
        return (server, "/\(SeaweedFS.bucket)/\(prefix)/round-\(round).html", log)
    }

    /// Unsigned GETs of `path` from the store until `condition` holds or `seconds` pass; the last answer.
    static func poll(
        _ store: SeaweedFS, _ path: String, seconds: Double = 30, until condition: ((status: Int, head: String, body: String)) -> Bool
    )
        async throws -> (status: Int, head: String, body: String)
    {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            // Only an answer asked for after the deadline is the last: amid a full suite this
            // task may wait long on the concurrency pool between asking and reading the answer.
            let asked = Date()
            let answer = try await HTTPProbe.fetch(port: store.port, path: path)
            if condition(answer) || asked > deadline { return answer }
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}
