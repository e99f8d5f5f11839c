import ArgumentParser
import Foundation
import HyzerKit
import HyzerSync

struct SyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync", abstract: "Sync once, through a shared folder.")
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var output: OutputOptions
    @Option(help: "A folder every replica of the group sees (Syncthing, Dropbox, NFS, a USB stick).") var folder: String

    func run() throws {
        let replica = try storeOptions.open()
        let report: FolderSyncReport
        do {
            report = try FolderSync(replica: replica, folder: DirectoryFolder(root: URL(fileURLWithPath: folder))).run()
        } catch let error as FolderError {
            throw ReplicaError.storage(detail: "the shared folder failed at \(error)")
        }
        for rejection in report.rejected { Terminal.error("warning: \(rejection.file): \(rejection.reason)") }
        if output.json { return try JSONOutput.print(report) }
        print("\(report.members) other members · read \(report.bundlesRead) bundles (\(report.bundlesSkipped) already read) · "
            + "\(report.opsIngested) new ops · wrote \(report.bundlesWritten) bundles · deleted \(report.bundlesDeleted)"
            + (report.rejected.isEmpty ? "" : " · \(report.rejected.count) refused"))
    }
}

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "export", abstract: "Write every op this replica holds into a bundle file.")
    @OptionGroup var storeOptions: StoreOptions
    @Option(help: "The bundle file to write.") var out: String

    func run() throws {
        let replica = try storeOptions.open()
        let bytes = try BundleFiles.export(replica)
        do {
            try DirectoryFolder(root: URL(fileURLWithPath: "/")).writeAtomically(URL(fileURLWithPath: out).path, bytes)
        } catch {
            throw ReplicaError.storage(detail: "cannot write \(out): \(error)")
        }
        print("wrote \(bytes.count) bytes to \(out)")
    }
}

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "import", abstract: "Ingest bundle files from a member of the group.")
    @OptionGroup var storeOptions: StoreOptions
    @Argument(help: "Bundle files.") var files: [String]

    func run() throws {
        let replica = try storeOptions.open()
        var failures = 0
        for file in files {
            guard let data = FileManager.default.contents(atPath: file) else {
                Terminal.error("error: \(file): the file cannot be read")
                failures += 1
                continue
            }
            do {
                let report = try BundleFiles.import(Array(data), into: replica)
                for rejection in report.rejected { Terminal.error("error: \(file): \(rejection)") }
                failures += report.rejected.isEmpty ? 0 : 1
                print("\(file): \(report.opsApplied) new ops, \(report.opsAlreadyHeld) already held\(report.segmentsPending > 0 ? ", \(report.segmentsPending) segments waiting for earlier ops" : "")")
            } catch let error as BundleError {
                Terminal.error("error: \(file): \(error); nothing was imported from it")
                failures += 1
            }
        }
        if failures > 0 { throw ReportedFailure(exitCode: 1) }
    }
}
