import Foundation
import GRDB
import HyzerKit
import HyzerTestSupport
import Testing

/// The messages that name a failure's cause (docs/cli.md, "Messages that name the cause"), each
/// checked as a user meets it: the binary's exact lines on stderr and its exit status.
@Suite struct MessageCLITests {
    let directory = TemporaryDirectory("messages")

    /// A store in a group of its own.
    func member(_ name: String) throws -> BinaryRunner {
        let cli = BinaryRunner(store: directory.path(name))
        try cli.ok("init", "--name", name, quiet: false)
        try cli.ok("group", "create", quiet: false)
        return cli
    }

    /// This test process holds the store's write lock while `body` runs, as an `import` stopped
    /// inside its transaction would. Like every hyzer-peer process it opens the store as a pool,
    /// which leaves the write-ahead log non-empty, so other processes can open the store and read.
    func holdingTheStore<T>(of cli: BinaryRunner, _ body: () throws -> T) throws -> T {
        let holder = try DatabasePool(path: cli.store.appendingPathComponent(Replica.databaseFileName).path)
        return try holder.writeWithoutTransaction { db in
            try db.execute(sql: "BEGIN IMMEDIATE")
            defer { try? db.execute(sql: "ROLLBACK") }
            return try body()
        }
    }

    /// The message naming this test process as the holder: the command's name without its
    /// directory, then the arguments, cut at 100 characters.
    static var busy: String {
        let arguments = CommandLine.arguments
        let text = ([URL(fileURLWithPath: arguments[0]).lastPathComponent] + arguments.dropFirst()).joined(separator: " ")
        let shown = text.count <= 100 ? text : String(text.prefix(99)) + "…"
        return "the store is busy: another process holds it (pid \(getpid()): \(shown)); wait for it to finish or stop it"
    }

    /// The same message when `/proc/locks` names no holder at that instant.
    static let busyWithoutHolder = "the store is busy: another process holds it; wait for it to finish or stop it"

    /// A busy machine's `/proc/locks` runs to many pages, the newest locks first, and the kernel
    /// hands out one page per read. With a thousand locks taken after the store's (this process
    /// holds them on another file, as other stores' readers would), the holder's line is pages
    /// down, and is named all the same.
    @Test func aStoreHeldByAnotherProcessNamesThatProcess() throws {
        let a = try member("a")
        let started = Date()
        let result = try holdingTheStore(of: a) {
            let others = try ByteLocks(file: directory.path("others"), count: 1_000)
            defer { others.release() }
            return try a.run("player", "add", "Ann")
        }
        let waited = Date().timeIntervalSince(started)
        #expect(result.status == 1)
        #expect(result.stderr == "error: \(Self.busy)\n", "\(result)")
        #expect(result.stdout.isEmpty)
        #expect(waited > 4.5 && waited < 15, "a writer waits five seconds, not \(waited)")
        #expect(try a.ok("player", "list", "--json") == "[]", "nothing was written")
    }

    /// Write locks this process holds on every other byte of a file of its own, one line each in
    /// `/proc/locks`, until released.
    struct ByteLocks {
        let descriptor: Int32

        init(file: URL, count: Int) throws {
            descriptor = open(file.path, O_RDWR | O_CREAT, 0o600)
            try #require(descriptor >= 0)
            for index in 0..<count {
                var lock = flock()
                lock.l_type = Int16(F_WRLCK)
                lock.l_whence = Int16(SEEK_SET)
                lock.l_start = off_t(2 * index)
                lock.l_len = 1
                try #require(fcntl(descriptor, F_SETLK, &lock) == 0, "lock \(index): errno \(errno)")
            }
        }

        func release() { close(descriptor) }
    }

    @Test func aPeerOfAnotherGroupIsNamedOnTheDialingSide() throws {
        let (a, b) = (try member("a"), try member("b"))
        let server = try Served(b, [])
        let result = try a.run("sync", "--peer", "127.0.0.1:\(server.port)")
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "error: sync with 127.0.0.1:\(server.port) failed: the peer closed the connection during the handshake: "
                + "it may be in another group (a different group secret) or may not be hyzer-peer; nothing partial was kept\n",
            "\(result)")
        #expect(server.stop() == 0)
    }

    @Test func aRefusedConnectionIsOneLine() throws {
        let a = try member("a")
        let result = try a.run("sync", "--peer", "127.0.0.1:1")
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "error: could not connect to 127.0.0.1:1: connection refused; "
                + "check that `hyzer-peer serve` runs there and the address is right\n", "\(result)")
    }

    /// A folder sync that moved nothing logs at debug; a signal stops `serve` with one line.
    @Test func serveLogsOnlyWhatHappened() throws {
        let a = try member("a")
        let server = try Served(a, ["--folder", directory.path("shared").path, "--folder-interval", "1"])
        // The first sync publishes a's ops; the next two move nothing.
        Thread.sleep(forTimeInterval: 3)
        #expect(server.stop() == 0)
        #expect(
            server.lines == [
                "info hyzer.serve: address=127.0.0.1:\(server.port) [HyzerSync] listening",
                "info hyzer.serve: ops=0 read=0 written=1 [HyzerSync] folder synced",
                "notice hyzer.serve: signal=SIGINT [hyzer_peer] stopping",
            ], "\(server.errors.output)")
    }

    /// A folder sync blocked by another process is logged once (repeats at debug), and its
    /// recovery once. What the kernel's `/proc/locks` shows at the instant of a failure decides
    /// whether its line names the holder: every line names this test process or no process, and
    /// some line names it.
    @Test func serveLogsABusyStoreOnceAndItsRecovery() throws {
        let a = try member("a")
        let failed = "hyzer.serve: reason=\(Self.busy) [HyzerSync] folder sync failed"
        let unnamed = "hyzer.serve: reason=\(Self.busyWithoutHolder) [HyzerSync] folder sync failed"
        let server = try holdingTheStore(of: a) {
            let server = try Served(a, ["--folder", directory.path("shared").path, "--folder-interval", "1", "--log-level", "debug"])
            #expect(
                server.errors.wait(seconds: 30) {
                    $0.contains(failed) && ($0.contains("debug " + failed) || $0.contains("debug " + unnamed))
                }, "\(server.errors.output)")
            return server
        }
        #expect(server.errors.wait { $0.contains("folder synced") }, "\(server.errors.output)")
        #expect(server.stop() == 0)
        let failures = server.lines.filter { $0.hasSuffix("folder sync failed") }
        #expect(["error " + failed, "error " + unnamed].contains(failures.first ?? ""), "\(server.errors.output)")
        #expect(failures.count >= 2, "\(server.errors.output)")
        #expect(failures.dropFirst().allSatisfy { ["debug " + failed, "debug " + unnamed].contains($0) }, "\(server.errors.output)")
        #expect(failures.contains { $0.hasSuffix(failed) }, "\(server.errors.output)")
        #expect(server.lines.filter { $0.hasSuffix("works again") } == ["notice hyzer.serve: [HyzerSync] folder sync works again"])
    }

    /// `serve --listen 127.0.0.1:0` as its own process, its port, and what it logs.
    struct Served {
        let process: Process
        let errors: OutputCollector
        let port: Int

        init(_ cli: BinaryRunner, _ arguments: [String]) throws {
            process = try cli.start(["serve", "--listen", "127.0.0.1:0"] + arguments)
            let output = OutputCollector(process.standardOutput as! Pipe)
            errors = OutputCollector(process.standardError as! Pipe)
            #expect(output.wait { $0.hasSuffix("\n") }, "serve did not start: \(errors.output)")
            port = Int(output.output.split(separator: ":").last?.dropLast() ?? "") ?? 0
        }

        /// Interrupts the server and returns its exit status, once its last line is read.
        func stop() -> Int32 {
            kill(process.processIdentifier, SIGINT)
            process.waitUntilExit()
            _ = errors.wait(seconds: 5) { $0.hasSuffix("stopping\n") }
            return process.terminationStatus
        }

        /// The log lines without their timestamps.
        var lines: [String] {
            errors.output.split(separator: "\n").map { $0.split(separator: " ", maxSplits: 1).last.map(String.init) ?? "" }
        }
    }
}
