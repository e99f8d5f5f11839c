import Foundation
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
    static func startStore() throws -> SeaweedFS {
        let store = try SeaweedFS()
        let location = try BucketLocation(url: "s3://\(SeaweedFS.bucket)", endpoint: store.endpoint, region: "us-east-1")
        let probe = BucketFolder(
            client: BucketClient(
                location: location, credentials: BucketCredentials(accessKeyID: SeaweedFS.accessKey, secretAccessKey: SeaweedFS.secretKey)))
        let deadline = Date().addingTimeInterval(30)
        while (try? probe.list("")) == nil, Date() < deadline { Thread.sleep(forTimeInterval: 0.25) }
        return store
    }

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
}
