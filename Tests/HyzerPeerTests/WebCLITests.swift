import Foundation
import HyzerBench
import HyzerTestSupport
import Testing

/// `serve --http` as a separate process: the URL it prints, its JSON against the CLI's, access.
@Suite struct WebCLITests {
    let directory = TemporaryDirectory("web-cli")

    /// A replica in a group with a round of Ann and Ben; returns the round's id.
    func prepare(_ cli: BinaryRunner) throws -> String {
        _ = try cli.ok("init", "--name", "clubhouse", "--owner", "Ann", quiet: false)
        _ = try cli.ok("group", "create", quiet: false)
        _ = try cli.ok("player", "add", "Ben", quiet: false)
        return try cli.ok("round", "start", "--course", "Morley Field", "--players", "Ann,Ben", quiet: false)
    }

    /// Starts `serve` with `--http`, returning the process and the web URL it printed.
    static func serveWeb(_ cli: BinaryRunner, _ extra: [String]) throws -> (Process, OutputCollector, String) {
        let process = try cli.start(["serve", "--listen", "127.0.0.1:0"] + extra)
        let output = OutputCollector(process.standardOutput as! Pipe)
        _ = OutputCollector(process.standardError as! Pipe)
        #expect(
            output.wait { $0.contains("web on ") && $0.contains("listening on ") && $0.hasSuffix("\n") }, "no web line: \(output.output)")
        let line = output.output.split(separator: "\n").first { $0.hasPrefix("web on ") } ?? ""
        return (process, output, String(line.dropFirst("web on ".count)))
    }

    /// The peer port from `serve`'s `listening on HOST:PORT` line.
    static func peerPort(_ output: OutputCollector) -> Int {
        let line = output.output.split(separator: "\n").first { $0.hasPrefix("listening on ") } ?? ""
        return Int(line.split(separator: ":").last ?? "") ?? 0
    }

    static func port(_ url: String) -> Int {
        Int(url.split(separator: ":").last?.prefix { $0.isNumber } ?? "") ?? 0
    }

    func interrupt(_ process: Process) -> Int32 {
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        return process.terminationStatus
    }

    @Test func theAPIPrintsTheCLIsDocumentsAndTheStreamSeesAnotherProcessScore() async throws {
        let cli = BinaryRunner(store: directory.path("a"))
        let round = try prepare(cli)
        _ = try cli.ok("score", round, "--player", "Ben", "--hole", "1", "--strokes", "2", quiet: false)
        let (server, _, url) = try Self.serveWeb(cli, ["--http", "127.0.0.1:0"])
        #expect(url.hasPrefix("http://127.0.0.1:") && url.hasSuffix("/"), "\(url)")
        let port = Self.port(url)
        for (path, arguments) in [
            ("/api/rounds/\(round)/standings", ["standings", round, "--json"]),
            ("/api/rounds/\(round)/players/Ben", ["breakdown", round, "--player", "Ben", "--json"]),
            ("/api/rounds/\(round)/discrepancies", ["discrepancies", round, "--json"]),
            ("/api/rounds/\(round)", ["round", "show", round, "--json"]),
            ("/api/rounds", ["round", "list", "--json"]), ("/api/players", ["player", "list", "--json"]),
            ("/api/history", ["history", "--json"]),
        ] {
            let response = try await HTTPProbe.fetch(port: port, path: path)
            #expect(response.status == 200)
            #expect(response.body == (try cli.run(arguments).output), "\(path)")
        }

        let stream = try HTTPProbe(port: port, path: "/rounds/\(round)/events")
        #expect(await stream.read { $0.contains(">Ben</a>") && $0.contains("data: </table>\n\n") })
        _ = try cli.ok("score", round, "--player", "Ann", "--hole", "1", "--strokes", "4", quiet: false)
        #expect(await stream.read { $0.contains("tier-overPar\">+1<") }, "\(stream.received)")
        #expect(interrupt(server) == 0)
    }

    @Test func beyondLoopbackTheLinkNeedsTheTokenAndRotationRevokesIt() async throws {
        let cli = BinaryRunner(store: directory.path("a"))
        let round = try prepare(cli)
        let (first, _, url) = try Self.serveWeb(cli, ["--http", "0.0.0.0:0"])
        let token = String(url.split(separator: "=").last ?? "")
        #expect(url.contains("/?token=") && token.count == 32, "\(url)")
        let port = Self.port(String(url.split(separator: "/")[1]))
        #expect(try await HTTPProbe.fetch(port: port, path: "/rounds/\(round)").status == 401)
        #expect(try await HTTPProbe.fetch(port: port, path: "/rounds/\(round)?token=\(token)").status == 200)
        #expect(interrupt(first) == 0)

        let (again, _, sameURL) = try Self.serveWeb(cli, ["--http", "0.0.0.0:0"])
        #expect(sameURL.hasSuffix(token), "the token stays while the salt does")
        #expect(interrupt(again) == 0)

        let (rotated, _, newURL) = try Self.serveWeb(cli, ["--http", "0.0.0.0:0", "--rotate-view-token"])
        let newPort = Self.port(String(newURL.split(separator: "/")[1]))
        #expect(!newURL.hasSuffix(token))
        #expect(try await HTTPProbe.fetch(port: newPort, path: "/rounds/\(round)?token=\(token)").status == 401)
        #expect(try await HTTPProbe.fetch(port: newPort, path: "/rounds/\(round)", headers: ["Cookie: hyzer_view=\(token)"]).status == 401)
        #expect(interrupt(rotated) == 0)

        let (open, _, openURL) = try Self.serveWeb(cli, ["--http", "0.0.0.0:0", "--http-public"])
        #expect(!openURL.contains("token"))
        #expect(try await HTTPProbe.fetch(port: Self.port(openURL), path: "/rounds/\(round)").status == 200)
        #expect(interrupt(open) == 0)
    }

    @Test func metricsCountWhatAPeerSyncCarried() async throws {
        let (a, b) = (BinaryRunner(store: directory.path("a")), BinaryRunner(store: directory.path("b")))
        let round = try prepare(a)
        _ = try b.ok("init", "--name", "phone", quiet: false)
        try b.join(a)
        let (server, output, url) = try Self.serveWeb(a, ["--http", "127.0.0.1:0"])
        _ = try b.ok("sync", "--peer", "127.0.0.1:\(Self.peerPort(output))", quiet: false)
        _ = try b.ok("score", round, "--player", "Ben", "--hole", "1", "--strokes", "3", quiet: false)
        _ = try b.ok("sync", "--peer", "127.0.0.1:\(Self.peerPort(output))", quiet: false)
        func value(_ metrics: String, _ name: String) -> Int? {
            metrics.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { $0.split(separator: " ").last }.flatMap { Int($0) }
        }
        var metrics = ""
        for _ in 0..<200 {
            metrics = try await HTTPProbe.fetch(port: Self.port(url), path: "/metrics").body
            if value(metrics, "hyzer_peer_connections_ended_total") == 2, let ingested = value(metrics, "hyzer_ops_ingested_total"),
                ingested >= 2,
                value(metrics, "hyzer_ingest_latency_seconds_count") == ingested
            {
                break
            }
            try await Task.sleep(for: .milliseconds(25))
        }
        #expect(value(metrics, "hyzer_peer_connections_ended_total") == 2, "\(metrics)")
        // b's device record and its score arrived; each got a latency observation.
        let ingested = value(metrics, "hyzer_ops_ingested_total") ?? 0
        #expect(ingested >= 2, "\(metrics)")
        #expect(value(metrics, "hyzer_ingest_latency_seconds_count") == ingested)
        #expect((value(metrics, "hyzer_peer_bytes_received_total") ?? 0) > 0, "\(metrics)")
        #expect((value(metrics, "hyzer_peer_bytes_sent_total") ?? 0) > 0, "\(metrics)")
        #expect(interrupt(server) == 0)
    }

    @Test func aMalformedHTTPAddressIsRefused() throws {
        let cli = BinaryRunner(store: directory.path("a"))
        _ = try prepare(cli)
        let result = try cli.run("serve", "--listen", "127.0.0.1:0", "--http", "here")
        #expect(result.status == 1)
        #expect(result.stderr == "error: 'here' is not HOST:PORT or PORT for --http\n", "\(result)")
    }
}
