import Foundation
import HyzerEngine
import HyzerKit
import HyzerSync

/// `sync --discover`: looks for the group's members on the LAN for a while and syncs once with
/// each as it is found (a device holding an invitation first asks the members that advertise
/// its join tag). A responder that is not running is one warning, and nothing to sync with.
struct DiscoveredSync {
    let engine: HyzerEngine
    let store: StoreOptions
    let json: Bool

    func run(for duration: Duration) async throws {
        let scan: DiscoveryScan
        do throws(DiscoveryError) { scan = try DiscoveryScan(DNSServiceDiscovery()) } catch {
            Terminal.error("error: discovery is off: \(error)")
            throw ReportedFailure(exitCode: 1)
        }
        defer { scan.stop() }
        let replica = try store.open()
        var done: Set<PeerAddress> = []
        var outcomes: [ConnectionOutcome] = []
        let deadline = ContinuousClock.now + duration
        while ContinuousClock.now < deadline {
            let found: [PeerAddress]
            if let group = try replica.group() {
                found = scan.members(of: group)
            } else {
                found = try replica.pendingInvitation().map(scan.admitting) ?? []
            }
            for address in found where !done.contains(address) {
                done.insert(address)
                do {
                    let report = try await engine.syncPeer(TCPLink.Opener(address: address), logger: Log.make("sync"))
                    if let joined = report.joined, !json { print("joined group \(joined): a member admitted this device") }
                    outcomes.append(report.outcome)
                    if !json { print(Self.line(report.outcome, address)) }
                } catch {
                    Terminal.error("warning: \(address): \(error)")
                }
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        if json { return try JSONOutput.print(outcomes) }
        if outcomes.isEmpty { print("found no member of the group on the LAN in \(duration.components.seconds) s") }
    }

    static func line(_ outcome: ConnectionOutcome, _ address: PeerAddress) -> String {
        "synced with \(outcome.peer.map { String($0.prefix(12)) } ?? "?") at \(address): sent \(outcome.opsSent) ops (\(outcome.bytesSent) bytes), "
            + "received \(outcome.opsReceived) ops (\(outcome.bytesReceived) bytes) in \(outcome.milliseconds) ms"
    }
}
