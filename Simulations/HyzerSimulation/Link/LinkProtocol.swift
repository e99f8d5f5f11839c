import HyzerDomain
import HyzerKit
import HyzerSync

/// What happened when a link message arrived.
public struct LinkReceipt: Sendable {
    /// The sender, as its bundle names it.
    public let sender: AuthorID
    /// The sender's vector when it made the message.
    public let senderVector: VersionVector
    /// The segments handed to ingest (fewer than the message held when a crash cut it short).
    public let ingested: [AuthorSegment]
    /// Segments of the message that were never ingested.
    public let abandoned: Int
    /// What ingest did.
    public let report: IngestReport
    /// The answer to send back, if the peer lacks ops.
    public let reply: [UInt8]?
    /// The receiver's version vector after the ingest.
    public let localVector: VersionVector
}

/// One side of a direct link between two replicas (phone↔phone, phone↔watch): the seam where
/// the TCP sync state machine will replace the simulator's message exchange.
///
/// Each message is a signed delta bundle (`Bundle`), so the simulator exercises the same
/// encoding, signatures and ingest as files and TCP.
public protocol LinkProtocol {
    /// A periodic sync: the message to send the peer now, or nil when there is nothing to say.
    /// `local` is the replica's current version vector.
    mutating func outgoing(_ replica: Replica, group: GroupMembership, local: VersionVector) throws -> [UInt8]?
    /// A message from the peer: authenticates it, ingests its segments — only the first
    /// `segmentLimit` when a crash cuts the ingest short — and prepares the reply.
    mutating func incoming(
        _ bytes: [UInt8], replica: Replica, group: GroupMembership, segmentLimit: Int?
    ) throws -> LinkReceipt
}
