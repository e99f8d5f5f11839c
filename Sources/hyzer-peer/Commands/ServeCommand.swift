import ArgumentParser
import Foundation
import HyzerKit
import HyzerSync
import Logging

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: "Sync live with peers over TCP (and a folder, on a schedule) until interrupted.")
    @OptionGroup var storeOptions: StoreOptions
    @Option(help: "Where to accept peers, as HOST:PORT (port 0 picks a free one).") var listen: String
    @Option(name: .customLong("peer"), help: "A peer to dial and keep connected, as HOST:PORT (repeatable).") var peers: [String] = []
    @Option(help: "Also sync this shared folder on a schedule.") var folder: String?
    @Option(help: "Seconds between folder syncs.") var folderInterval = 10
    @Option(help: "trace, debug, info, notice, warning, error or critical.") var logLevel = "info"

    func run() async throws {
        guard let address = PeerAddress(listen) else { throw ReplicaError.invalidValue("'\(listen)' is not HOST:PORT") }
        let dials = try peers.map { text in
            guard let peer = PeerAddress(text) else { throw ReplicaError.invalidValue("'\(text)' is not HOST:PORT") }
            return peer
        }
        guard let level = Logger.Level(rawValue: logLevel) else {
            throw ReplicaError.invalidValue("'\(logLevel)' is not a log level; use trace, debug, info, notice, warning, error or critical")
        }
        let replica = try storeOptions.open()
        var server = PeerServer(replica: replica, group: try replica.requireGroup(), logger: Log.make("serve", level: level))
        server.peers = dials
        server.folder = folder.map { DirectoryFolder(root: URL(fileURLWithPath: $0)) }
        server.folderInterval = .seconds(folderInterval)
        let task = Task { [server] in
            try await server.run(listeningOn: address) { port in
                // One line on stdout, so scripts and tests learn the port.
                Terminal.line("listening on \(address.host):\(port)")
            }
        }
        let signals = SignalWatch(SIGINT, SIGTERM) { task.cancel() }
        defer { signals.stop() }
        do {
            try await task.value
        } catch is CancellationError {
        }
    }
}
