import ArgumentParser
import Foundation
import HyzerEngine
import HyzerKit
import HyzerSync

struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync", abstract: "Sync once, through a shared folder, a bucket or with a peer.")
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions
    @Option(help: "A folder every replica of the group sees (Syncthing, Dropbox, NFS, a USB stick).") var folder: String?
    @Option(help: "A peer running `hyzer-peer serve`, as HOST:PORT.") var peer: String?
    @OptionGroup var bucket: BucketOptions
    @Flag(help: "Sync once with every member of the group found on the LAN (DNS-SD).") var discover = false
    @Option(name: .customLong("for"), help: ArgumentHelp("How long --discover looks for members.", valueName: "SECONDS"))
    var seconds = 3

    func validate() throws {
        guard [folder != nil, peer != nil, bucket.bucket != nil, discover].filter({ $0 }).count == 1 else {
            throw ValidationError("give one of --folder DIR, --bucket s3://BUCKET/PREFIX, --peer HOST:PORT or --discover")
        }
        guard (1...3_600).contains(seconds) else { throw ValidationError("--for takes 1 to 3600 seconds") }
        try bucket.check()
    }

    func run() async throws {
        let engine = try await storeOptions.openEngine()
        if discover { return try await DiscoveredSync(engine: engine, store: storeOptions, json: output.json).run(for: .seconds(seconds)) }
        if let peer { return try await syncPeer(engine, peer) }
        if let folder { try await syncShared(engine, "folder") { try await engine.syncFolder(URL(fileURLWithPath: folder)) } }
        if let bucketFolder = try bucket.folder() {
            try await syncShared(engine, "bucket") { try await engine.syncBucket(bucketFolder) }
        }
    }

    /// One sync through a folder or a bucket (`medium` names it in messages).
    private func syncShared(_ engine: HyzerEngine, _ medium: String, _ sync: () async throws -> FolderSyncResult) async throws {
        let report: FolderSyncReport
        do {
            switch try await sync() {
            case .askedToJoin(let group):
                return print(
                    "asked to join group \(group) through the \(medium); a member admits this device at its next "
                        + "\(medium) sync (or `serve --\(medium)`): run this again after that")
            case .synced(let synced, let joined):
                if let joined, !output.json { print("joined group \(joined): a member admitted this device") }
                report = synced
            }
        } catch PeerSyncError.joinRefused(let refusal) {
            throw CommandLineError.refusedByMember(refusal)
        } catch let error as FolderError {
            throw ReplicaError.storage(detail: "the shared folder failed at \(error)")
        }
        for rejection in report.rejected { Terminal.error("warning: \(rejection.file): \(rejection.reason)") }
        if output.json { return try JSONOutput.print(report) }
        print(
            "\(report.members) other members · read \(report.bundlesRead) bundles (\(report.bundlesSkipped) already read) · "
                + "\(report.opsIngested) new ops · wrote \(report.bundlesWritten) bundles · retired \(report.bundlesRetired) · deleted \(report.bundlesDeleted)"
                + (report.rejected.isEmpty ? "" : " · \(report.rejected.count) refused"))
    }

    private func syncPeer(_ engine: HyzerEngine, _ text: String) async throws {
        guard let address = PeerAddress(text) else {
            throw CommandLineError.notAPeerAddress(text)
        }
        let report: PeerSyncReport
        do {
            report = try await engine.syncPeer(TCPLink.Opener(address: address), logger: Log.make("sync"))
        } catch let failure as DialFailure {
            throw CommandLineError.dialFailed(failure)
        } catch let error as PeerSyncError {
            throw CommandLineError.peerSync(error, address: address)
        }
        if let joined = report.joined, !output.json { print("joined group \(joined): a member admitted this device") }
        let outcome = report.outcome
        if output.json { return try JSONOutput.print(outcome) }
        print(
            "synced with \(outcome.peer.map { String($0.prefix(12)) } ?? "?") at \(address): sent \(outcome.opsSent) ops (\(outcome.bytesSent) bytes), "
                + "received \(outcome.opsReceived) ops (\(outcome.bytesReceived) bytes) in \(outcome.milliseconds) ms")
    }
}

struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Write every op this replica holds into a bundle file, or completed rounds as UDisc CSV.")
    @OptionGroup var storeOptions: StoreOptions
    @Option(help: "The bundle file to write.") var out: String?
    @Option(help: "Write every completed round as a UDisc scorecard CSV file instead.") var udisc: String?

    func validate() throws {
        guard (out == nil) != (udisc == nil) else { throw ValidationError("give either --out FILE or --udisc FILE") }
    }

    func run() async throws {
        let engine = try await storeOptions.openEngine()
        guard let out else { return try await UDiscFiles.export(engine, to: udisc!) }
        let bytes = try await engine.exportBundle()
        try UserFile.write(out, bytes)
        print("wrote \(bytes.count) bytes to \(out)")
    }
}

struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import", abstract: "Ingest bundle files from a member of the group, or UDisc scorecard CSV files.")
    @OptionGroup var storeOptions: StoreOptions
    @Flag(help: "The files are UDisc scorecard exports (CSV).") var udisc = false
    @Argument(help: "Bundle files (or UDisc CSV files with --udisc).") var files: [String]

    func run() async throws {
        let engine = try await storeOptions.openEngine()
        if udisc { return try await UDiscFiles.import(files, into: engine) }
        var failures = 0
        for file in files {
            let bytes: [UInt8]
            do {
                bytes = try UserFile.read(file, maximumBytes: HyzerEngine.bundleBytesMax)
            } catch {
                Terminal.error("error: \(error)")
                failures += 1
                continue
            }
            do {
                // The engine signs the receipts of rounds whose finish arrived.
                let report = try await engine.importBundle(bytes)
                for rejection in report.rejected { Terminal.error("error: \(file): \(rejection)") }
                failures += report.rejected.isEmpty ? 0 : 1
                print(
                    "\(file): \(report.opsApplied) new ops, \(report.opsAlreadyHeld) already held\(report.segmentsPending > 0 ? ", \(report.segmentsPending) segments waiting for earlier ops" : "")"
                )
            } catch let error as BundleError {
                Terminal.error("error: \(file): \(error); nothing was imported from it")
                failures += 1
            }
        }
        if failures > 0 { throw ReportedFailure(exitCode: 1) }
    }
}
