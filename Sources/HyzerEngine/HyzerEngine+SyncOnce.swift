import Foundation
import HyzerKit
import HyzerSync
import Logging
import Synchronization

/// One sync at a time, as `hyzer-peer sync`, `import` and `export` run them (docs/embedding.md,
/// "Sync"): through a shared folder, with one peer, or by bundle files carried by hand. A device
/// holding an invitation asks to be admitted first; the rounds whose finish a sync or import
/// brought get this device's receipt (`Replica.afterIngest`, on every path that ingests).
extension HyzerEngine {
    /// Syncs once through the shared `folder`: reads every member's bundles, writes this
    /// device's, retires and deletes what the others have read. A device that holds an
    /// invitation and no group first asks to be admitted through the folder; while no member has
    /// answered, nothing else happens and the result says so. Throws
    /// `PeerSyncError.joinRefused` when a member refused this device, `FolderError` when the
    /// folder cannot be read or written, `GroupError.noGroup` with neither group nor invitation.
    public func syncFolder(_ folder: URL) async throws -> FolderSyncResult {
        try await syncShared(DirectoryFolder(root: folder))
    }

    /// Syncs once through a bucket (docs/bucket-sync.md) as `syncFolder(_:)` does through a
    /// folder: the same protocol over objects, joining included. Throws `BucketError` when the
    /// bucket refuses the credentials, the clock, or cannot be reached, with one sentence saying
    /// what to do.
    public func syncBucket(_ bucket: BucketFolder) async throws -> FolderSyncResult {
        try await syncShared(bucket)
    }

    /// One sync through `shared`, on the store's write queue (a thread that waits for the bucket
    /// without holding an event loop or the cooperative pool).
    private func syncShared(_ shared: any SharedFolder) async throws -> FolderSyncResult {
        try await perform(.write) { replica in
            var joined: GroupID?
            if try replica.group() == nil, let invitation = try replica.pendingInvitation() {
                switch try FolderJoin(replica: replica, folder: shared).ask() {
                case nil:
                    return .askedToJoin(group: GroupID(invitation.groupID))
                case .refused(let refusal)?:
                    throw PeerSyncError.joinRefused(refusal)
                case .admitted?:
                    joined = GroupID(invitation.groupID)
                }
            }
            return .synced(try FolderSync(replica: replica, folder: shared).run(), joined: joined)
        }
    }

    /// Syncs once with the peer `opener` reaches (`TCPLink.Opener` for `hyzer-peer serve`, or
    /// an app's own link): a device holding an invitation and no group is admitted by it first;
    /// the exchange dials with the newest group key, then with older ones while the peer has
    /// not received the latest rekey. Throws `PeerSyncError` when the peer does not admit this
    /// device or the exchange fails (nothing partial is kept), `DialFailure` (or what `opener`
    /// throws) when the peer cannot be reached.
    ///
    /// With `within` (a background task's few seconds), the join and the exchange end by then:
    /// one the deadline cuts short throws `EngineError.deadlinePassed`, which says how many ops
    /// crossed each way before the cut; what arrived is kept (whole bundles only), and this
    /// device's receipts are signed as after any sync.
    public func syncPeer(_ opener: some ByteLinkOpener, within deadline: Duration? = nil, logger: Logger? = nil) async throws
        -> PeerSyncReport
    {
        try requireOpen()
        let peer = PeerSync(replica: replica, logger: logger ?? Self.syncLogger)
        // Whichever ends first, the exchange or the deadline, settles the race: a cut exchange
        // is cancelled, and what it did is reported as cut even if its outcome looks whole.
        let settled = Settled()
        let work = Task {
            let joined = try await peer.join(opener).map(GroupID.init)
            let outcome = try await peer.exchange(opener)
            return (joined, outcome, settled.first())
        }
        let timer = Task {
            guard let deadline, (try? await Task.sleep(for: deadline)) != nil, settled.first() else { return }
            work.cancel()
        }
        let result = await withTaskCancellationHandler {
            await work.result
        } onCancel: {
            work.cancel()
        }
        timer.cancel()
        let (joined, outcome, finished): (GroupID?, ConnectionOutcome, Bool)
        do {
            (joined, outcome, finished) = try result.get()
        } catch {
            guard deadline != nil, !settled.first() else { throw error }
            throw EngineError.deadlinePassed(opsReceived: 0, opsSent: 0)
        }
        if let failure = outcome.failure, finished { throw PeerSyncError.failed(failure) }
        guard finished else { throw EngineError.deadlinePassed(opsReceived: outcome.opsReceived, opsSent: outcome.opsSent) }
        return PeerSyncReport(joined: joined, outcome: outcome)
    }

    /// A bundle file of every op this device holds, sealed with the group key, for a member to
    /// `importBundle(_:)` (at most `bundleBytesMax` bytes).
    public func exportBundle() async throws -> [UInt8] {
        try await perform(.read) { try BundleFiles.export($0) }
    }

    /// Ingests a bundle file a member exported, then signs the receipts of rounds whose finish
    /// arrived. Throws `BundleError` for a file that is not a bundle of this group (nothing is
    /// ingested from it); ops the report lists as rejected were refused one by one.
    public func importBundle(_ bytes: [UInt8]) async throws -> IngestReport {
        try await perform(.write) { try BundleFiles.import(bytes, into: $0) }
    }

    /// The largest bundle file `importBundle(_:)` takes.
    public static var bundleBytesMax: Int { BundleFiles.bytesMax }
}

/// Which of two racers got somewhere first: the first call of `first()` is true, every later one false.
final class Settled: Sendable {
    private let taken = Atomic(false)

    func first() -> Bool { taken.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged }
}

/// What `HyzerEngine.syncFolder(_:)` did.
public enum FolderSyncResult: Sendable {
    /// This device asked to join `group` through the folder; a member admits it at its next
    /// folder sync, and the next `syncFolder` then completes the join and syncs.
    case askedToJoin(group: GroupID)
    /// The folder sync ran, after joining `joined` when a member had just admitted this device.
    case synced(FolderSyncReport, joined: GroupID?)
}

/// What `HyzerEngine.syncPeer(_:within:logger:)` did.
public struct PeerSyncReport: Sendable {
    /// The group this device joined first, when the peer admitted it with its invitation.
    public let joined: GroupID?
    /// The exchange: the peer, ops and bytes each way, time taken.
    public let outcome: ConnectionOutcome
}
