import Foundation
import HyzerKit
import HyzerTestSupport
import Testing

/// A device running `serve` signs its receipt when a finish arrives, live or through the folder
/// (docs/domain.md, "Round receipts"), without a one-shot sync of its own.
@Suite struct ServeReceiptTests {
    let directory = TemporaryDirectory("serve-receipts")

    /// Ann's phone and Ben's phone in one group; Ann starts a round of the two and scores it whole.
    func club() throws -> (ann: BinaryRunner, ben: BinaryRunner, round: String) {
        let (ann, ben) = (BinaryRunner(store: directory.path("ann")), BinaryRunner(store: directory.path("ben")))
        try ann.ok("init", "--name", "ann-phone", "--owner", "Ann", quiet: false)
        try ben.ok("init", "--name", "ben-phone", "--owner", "Ben", quiet: false)
        try ann.ok("group", "create", quiet: false)
        try ben.join(ann)
        let shared = directory.path("shared").path
        for cli in [ann, ben, ann] { try cli.ok("sync", "--folder", shared, quiet: false) }
        try ann.ok("course", "add", "Tiny", "--pars", "3,3", quiet: false)
        let round = try ann.ok("round", "start", "--course", "Tiny", "--players", "Ann,Ben", quiet: false)
        try ann.ok("card", round, "Ann 3, Ben 4", quiet: false)
        try ann.ok("card", round, "Ann 2, Ben 3", quiet: false)
        return (ann, ben, round)
    }

    /// Starts `serve` with `extra` and returns the process and the port it printed.
    func serve(_ cli: BinaryRunner, _ extra: [String]) throws -> (Process, Int) {
        let process = try cli.start(["serve", "--listen", "127.0.0.1:0"] + extra)
        let output = OutputCollector(process.standardOutput as! Pipe)
        _ = OutputCollector(process.standardError as! Pipe)
        #expect(output.wait { $0.contains("listening on") }, "serve did not start: \(output.output)")
        return (process, Int(output.output.split(separator: ":").last?.split(separator: "\n").first ?? "") ?? 0)
    }

    func stop(_ process: Process) -> Int32 {
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Whether Ben's store holds a receipt of `round` signed by Ben's device.
    func benSigned(_ ben: BinaryRunner, _ round: String) throws -> Bool {
        let replica = try Replica.open(at: ben.store)
        defer { try? replica.close() }
        return try replica.receipts(round: UUID(uuidString: round)!).contains { $0.device == replica.author }
    }

    @Test func aLiveServerSignsWhenTheFinishArrives() throws {
        let (ann, ben, round) = try club()
        let (annServer, port) = try serve(ann, [])
        let (benServer, _) = try serve(ben, ["--peer", "127.0.0.1:\(port)"])
        #expect(OutputCollector.poll(seconds: 20) { (try? Replica.open(at: ben.store).rounds().count) == 1 }, "the round never reached ben")
        #expect(try !benSigned(ben, round))
        try ann.ok("round", "finish", round, quiet: false)
        #expect(OutputCollector.poll(seconds: 20) { (try? benSigned(ben, round)) == true }, "ben's server signed no receipt")
        // The receipt travels back to Ann's phone over the same live connection.
        let annReplica = try Replica.open(at: ann.store)
        #expect(OutputCollector.poll(seconds: 20) { (try? annReplica.receipts(round: UUID(uuidString: round)!).count) == 2 })
        try annReplica.close()
        #expect(stop(benServer) == 0)
        #expect(stop(annServer) == 0)
    }

    @Test func aServerSyncingAFolderSignsWhenTheFinishArrives() throws {
        let (ann, ben, round) = try club()
        let shared = directory.path("shared").path
        let (benServer, _) = try serve(ben, ["--folder", shared, "--folder-interval", "1"])
        try ann.ok("round", "finish", round, quiet: false)
        try ann.ok("sync", "--folder", shared, quiet: false)
        #expect(OutputCollector.poll(seconds: 20) { (try? benSigned(ben, round)) == true }, "ben's server signed no receipt")
        #expect(stop(benServer) == 0)
    }
}
