/// How often the interesting cases happened in a run (or a swarm): a swarm that never reaches
/// a case shows a zero here.
public struct Coverage: Hashable, Sendable, Encodable {
    /// One counted case.
    public enum Case: String, CaseIterable, Hashable, Sendable, Comparable {
        /// Holes where two devices recorded the same strokes and the views merged them.
        case silentMerges
        /// Holes whose leaves disagreed at some point (first scores from two devices, unequal).
        case discrepancies
        case resolutions
        case corrections
        /// Course edits from several phones at the same true instant.
        case concurrentCourseEdits
        /// Concurrent course edits whose ops carry the very same hybrid clock reading.
        case exactTieCourseEdits
        case crashes
        case crashesMidWrite
        case crashesMidIngest
        case crashesMidFolderSync
        /// Writes a power cut dropped because no sync had made them durable (docs/simulation.md,
        /// "The simulated disk").
        case unsyncedWritesDropped
        /// Power cuts that kept only a prefix of the last write.
        case writesTorn
        /// Reads the simulated disk failed, while a store opened after a power cut.
        case readsFailed
        case restarts
        case backwardClockSteps
        case forwardClockSteps
        /// Frames the engines put on connections.
        case framesSent
        /// Frames whose packet was lost and retransmitted (late, in order).
        case framesRetransmitted
        /// Streams stalled at a frame (a slow path, a radio gap).
        case streamStalls
        /// Frames waiting at a cut path (partition, offline, the watch out of range).
        case framesHeld
        /// Connections whose handshake completed.
        case connectionsOpened
        /// Connections the network reset.
        case connectionsReset
        /// Connections an engine closed because nothing arrived for the dead-peer bound.
        case peersDeclaredDead
        /// Connection attempts to an unreachable peer.
        case dialsFailed
        /// Deltas sent over a connection.
        case deltasSent
        /// Ingests that kept a segment pending above a gap.
        case gapsKeptPending
        /// Ingests over a connection that held a segment stamped too far ahead of the receiver's clock.
        case segmentsHeld
        /// Phones whose clock jumped a year ahead.
        case yearAheadClocks
        /// Ops stamped a year ahead, held aside by every other replica at convergence.
        case yearAheadOpsHeld
        /// Devices whose clock ran hours behind from the start.
        case hoursBehindClocks
        /// Crafted bundles a hostile member sent on a live connection.
        case hostileBundlesSent
        /// Hostile bundles or segments an honest replica refused (a connection closed on a
        /// bundle that does not decode, or segments ingest rejected).
        case junkRefused
        /// Hostile bundles whose made-up identities an honest replica kept pending or held,
        /// within the junk caps.
        case junkPending
        /// Identities no member admitted that the hostile member planted in its bundles.
        case plantedIdentitiesSent
        /// Admissions without a valid proof the hostile member sent (each in a planted log).
        case fakeAdmissionsSent
        /// Ingests that reported a planted identity's ops as no member's, and honest replicas
        /// that held them at convergence and counted them nowhere (no view, no member list, no rekey).
        case plantedIdentitiesRefused
        /// Crafted files the hostile member put in the shared folder.
        case hostileFilesWritten
        /// Readings of those files an honest replica refused or ignored (they hold no op it takes).
        case hostileFilesRefused
        /// Phones the organizer removed from the group.
        case membersRemoved
        /// Connections closed because one end was the removed phone (refused in the handshake,
        /// or cut when the removal arrived).
        case removedMemberRefused
        /// Live connections the removal reached while they were open: the member that learned
        /// of it sent the removed phone nothing more (`SyncFailure.peerRemoved`).
        case removedWhileConnected
        /// Ingests over a live connection that applied a round's finish: the receiver signed its
        /// receipts (docs/domain.md, "Round receipts").
        case receiptsAfterLiveFinish
        /// Folder syncs that ingested a round's finish after which the device signed receipts, as
        /// every path that ingests does (`Replica.afterIngest`). Seldom: a device that takes part
        /// in a round almost always has the finish over a live connection first.
        case receiptsAfterFolderFinish
        /// Heartbeats whose digest of what the peer holds disagreed with the peer's holdings, so
        /// that the peer answered with them (docs/sync-protocol.md, "Live connections heal").
        case beliefsCorrected
        /// Connections a dialer opened on an older epoch, to a peer the rekey had not reached.
        case olderEpochDials
        /// Phones whose store was replaced by an older backup of it.
        case backupsRestored
        /// Stores copied to another device that then ran with the same key.
        case storesCopied
        /// Forks of an author's log that every replica froze at the same point, at convergence.
        case forksDetected
        /// Devices that went on under a new key (`device continue`) after their key was found
        /// writing elsewhere.
        case devicesContinued
        case folderSyncs
        case filesWritten
        case filesHalfWrittenRead
        case filesDuplicated
        case filesOutOfOrder
        case filesLate
        case temporaryFilesSeen
        case folderRejections
        case offlinePeriods
        case partitions
        case oneWayPartitions
        /// Wi-Fi outages: every link but the watches' down at once.
        case outages
        case watchOutOfRange
        case roundsStarted
        case roundsFinished
        case roundsFinishedWhileOffline
        /// Scores created, by their clock, after their round's valid finish (views ignore them).
        case scoresAfterFinish
        case watchScores
        /// Commands a replica refused (a round not synced yet, a finished round, …).
        case refusedCommands

        /// Cases order by name.
        public static func < (lhs: Case, rhs: Case) -> Bool { lhs.rawValue < rhs.rawValue }

        /// Cases counted but not required of a swarm (`missing` leaves them out): a few dozen
        /// seeds may rightly never reach them; the soak reports their counts.
        public static let seldom: Set<Case> = [.receiptsAfterFolderFinish]
    }

    private var counts: [Case: Int] = [:]

    /// No case counted yet.
    public init() {}

    /// How often `item` happened.
    public subscript(_ item: Case) -> Int {
        get { counts[item] ?? 0 }
        set { counts[item] = newValue }
    }

    /// Adds one to `item`.
    mutating func count(_ item: Case, _ amount: Int = 1) {
        counts[item, default: 0] += amount
    }

    /// Adds another run's counts.
    public mutating func add(_ other: Coverage) {
        for item in Case.allCases { self[item] += other[item] }
    }

    /// The cases that never happened, seldom ones aside (`Case.seldom`).
    public var missing: [Case] { Case.allCases.filter { self[$0] == 0 && !Case.seldom.contains($0) } }

    /// Writes every case, zeros included, as one JSON object.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        for item in Case.allCases { try container.encode(self[item], forKey: Key(stringValue: item.rawValue)) }
    }

    private struct Key: CodingKey {
        let stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }
}
