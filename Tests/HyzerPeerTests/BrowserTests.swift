import Foundation
import HyzerTestSupport
import Testing

/// The live leaderboard in a real browser: headless Chromium driven by Selenium
/// (Tests/Browser/leaderboard.py), while scores are recorded on another replica that reaches the
/// served one over TCP. Needs Debian's chromium, chromium-driver and python3-selenium (CI
/// installs them). Outside CI it is skipped, with what to install, when they are missing; under
/// CI (`CI` set, as `.ci/run` runs) it runs and fails, so a missing browser cannot pass unseen.
@Suite struct BrowserTests {
    static let python = "/usr/bin/python3"
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Browser/leaderboard.py")
    static let install = "needs chromium, chromium-driver and python3-selenium: apt-get install chromium chromium-driver python3-selenium"

    /// The browser and its driver, found on `PATH` as `.ci/run` finds them, or nil.
    static let browser: (chromium: String, driver: String)? = {
        guard let chromium = executableOnPath("chromium"), let driver = executableOnPath("chromedriver"),
            FileManager.default.isExecutableFile(atPath: python)
        else { return nil }
        let check = Process()
        check.executableURL = URL(fileURLWithPath: python)
        check.arguments = ["-c", "import selenium"]
        check.standardOutput = FileHandle.nullDevice
        check.standardError = FileHandle.nullDevice
        guard (try? check.run()) != nil else { return nil }
        check.waitUntilExit()
        return check.terminationStatus == 0 ? (chromium, driver) : nil
    }()

    static func executableOnPath(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first(where: FileManager.default.isExecutableFile(atPath:))
    }

    static var underCI: Bool { !(ProcessInfo.processInfo.environment["CI"] ?? "").isEmpty }

    let directory = TemporaryDirectory("web-browser")

    @Test(.enabled(if: browser != nil || underCI, Comment(rawValue: install)))
    func theLeaderboardUpdatesItselfWhenAnotherDeviceScores() throws {
        let tools = try #require(Self.browser, Comment(rawValue: Self.install))
        let clubhouse = BinaryRunner(store: directory.path("clubhouse"))
        let phone = BinaryRunner(store: directory.path("phone"))
        _ = try clubhouse.ok("init", "--name", "clubhouse", quiet: false)
        _ = try phone.ok("init", "--name", "phone", "--owner", "Ann", quiet: false)
        _ = try clubhouse.ok("group", "create", quiet: false)
        try phone.join(clubhouse)
        for name in ["Ben", "Cat"] { _ = try phone.ok("player", "add", name, quiet: false) }
        let round = try phone.ok("round", "start", "--course", "Morley Field", "--players", "Ann,Ben,Cat", quiet: false)

        var (server, output, url) = try WebCLITests.serveWeb(clubhouse, ["--http", "127.0.0.1:0"])
        // The phone keeps a live connection to the clubhouse's replica.
        let phoneServer = try phone.start(["serve", "--listen", "127.0.0.1:0", "--peer", "127.0.0.1:\(WebCLITests.peerPort(output))"])
        defer {
            for process in [server, phoneServer] where process.isRunning {
                kill(process.processIdentifier, SIGINT)
                process.waitUntilExit()
            }
        }
        #expect(OutputCollector.poll(seconds: 20) { (try? clubhouse.run("round", "show", round).status) == 0 }, "the round never arrived")

        let browser = Process()
        browser.executableURL = URL(fileURLWithPath: Self.python)
        browser.arguments = [
            Self.script.path, url + "rounds/\(round)", directory.path("leaderboard.png").path, tools.chromium, tools.driver,
        ]
        let commands = Pipe()
        browser.standardInput = commands
        browser.standardOutput = Pipe()
        browser.standardError = Pipe()
        let said = OutputCollector(browser.standardOutput as! Pipe)
        let complained = OutputCollector(browser.standardError as! Pipe)
        try browser.run()
        defer {
            try? commands.fileHandleForWriting.write(contentsOf: Data("quit\n".utf8))
            browser.waitUntilExit()
        }
        #expect(said.wait(seconds: 60) { $0.contains("loaded\n") }, "the page did not load: \(said.output) \(complained.output)")

        func expect(_ order: [String]) {
            let before = said.output.split(separator: "\n").count
            try? commands.fileHandleForWriting.write(contentsOf: Data("expect \(order.joined(separator: ","))\n".utf8))
            #expect(
                said.wait(seconds: 30) { $0.split(separator: "\n").count > before && $0.hasSuffix("\n") }, "no answer: \(complained.output)"
            )
            let answer = said.output.split(separator: "\n").last ?? ""
            #expect(answer.hasPrefix("ok "), "the board is not \(order): \(answer)")
        }

        // Scored on the phone: each score reaches the page without a reload.
        _ = try phone.ok("score", round, "--player", "Cat", "--hole", "1", "--strokes", "2", quiet: false)
        expect(["Cat", "Ann", "Ben"])
        _ = try phone.ok("score", round, "--player", "Ann", "--hole", "1", "--strokes", "3", quiet: false)
        _ = try phone.ok("score", round, "--player", "Ben", "--hole", "1", "--strokes", "4", quiet: false)
        _ = try phone.ok("score", round, "--player", "Ben", "--hole", "2", "--strokes", "1", quiet: false)
        expect(["Ben", "Cat", "Ann"])
        #expect(said.output.hasSuffix("ok T1 Ben -1;T1 Cat -1;3 Ann E\n"), "\(said.output)")

        // The page's connection drops: the clubhouse's serve stops and starts again on the same
        // port. The page reconnects by itself and shows a score recorded while it was away.
        kill(server.processIdentifier, SIGINT)
        server.waitUntilExit()
        _ = try clubhouse.ok("score", round, "--player", "Ann", "--hole", "2", "--strokes", "1", quiet: false)
        (server, output, url) = try WebCLITests.serveWeb(clubhouse, ["--http", "127.0.0.1:\(WebCLITests.port(url))"])
        expect(["Ann", "Ben", "Cat"])
        #expect(said.output.hasSuffix("ok 1 Ann -2;T2 Ben -1;T2 Cat -1\n"), "\(said.output)")

        // At a phone's width, for the record (docs/web-leaderboard.png is one such picture).
        try? commands.fileHandleForWriting.write(contentsOf: Data("shot\n".utf8))
        #expect(said.wait(seconds: 30) { $0.hasSuffix("ok\n") })
        #expect(FileManager.default.fileExists(atPath: directory.path("leaderboard.png").path))
    }

    /// The leaderboard `serve --publish` writes into a bucket, opened as a static file straight
    /// from the store (no server of ours): its script polls for the newer page and swaps the
    /// board in without a reload.
    @Test(.enabled(if: (browser != nil && SeaweedFS.executable != nil) || underCI, Comment(rawValue: install)))
    func thePublishedLeaderboardUpdatesItselfFromTheBucket() async throws {
        let tools = try #require(Self.browser, Comment(rawValue: Self.install))
        let store = try SeaweedFS.ready()
        let clubhouse = BinaryRunner(store: directory.path("clubhouse"))
        _ = try clubhouse.ok("init", "--name", "clubhouse", "--owner", "Ann", quiet: false)
        _ = try clubhouse.ok("group", "create", quiet: false)
        for name in ["Ben", "Cat"] { _ = try clubhouse.ok("player", "add", name, quiet: false) }
        let round = try clubhouse.ok("round", "start", "--course", "Morley Field", "--players", "Ann,Ben,Cat", quiet: false).lowercased()
        let prefix = "\(SeaweedFS.publicPrefix)/browser-\(UUID().uuidString.prefix(8).lowercased())"
        let (server, page, log) = try BucketSyncCLITests.servePublishing(clubhouse, store: store, prefix: prefix, round: round)
        defer {
            kill(server.processIdentifier, SIGINT)
            server.waitUntilExit()
        }
        // Only the page's first appearance is waited for here (the 3 s of a score are
        // PublishTests' and BucketSyncCLITests').
        let first = try await BucketSyncCLITests.poll(store, page) { $0.status == 200 }
        #expect(first.status == 200, "the store answered \(first.status): \(first.head)\n\(log.output)")

        let browser = Process()
        browser.executableURL = URL(fileURLWithPath: Self.python)
        browser.arguments = [Self.script.path, store.endpoint + page, directory.path("published.png").path, tools.chromium, tools.driver]
        let commands = Pipe()
        browser.standardInput = commands
        browser.standardOutput = Pipe()
        browser.standardError = Pipe()
        let said = OutputCollector(browser.standardOutput as! Pipe)
        let complained = OutputCollector(browser.standardError as! Pipe)
        try browser.run()
        defer {
            try? commands.fileHandleForWriting.write(contentsOf: Data("quit\n".utf8))
            browser.waitUntilExit()
        }
        #expect(said.wait(seconds: 60) { $0.contains("loaded\n") }, "the page did not load: \(said.output) \(complained.output)")
        _ = try clubhouse.ok("score", round, "--player", "Cat", "--hole", "1", "--strokes", "2", quiet: false)
        try? commands.fileHandleForWriting.write(contentsOf: Data("expect Cat,Ann,Ben\n".utf8))
        #expect(said.wait(seconds: 30) { ($0.contains("ok ") || $0.contains("fail ")) && $0.hasSuffix("\n") }, "\(said.output)")
        #expect(said.output.contains("ok 1 Cat -1"), "\(said.output) \(complained.output)")
    }
}
