import HyzerKit
import HyzerSync

/// The simulator's link protocol: version vectors and deltas in signed bundles, driven by a
/// `DeltaExchange` state machine.
public struct DeltaExchangeLink: LinkProtocol {
    /// The state machine deciding what to send.
    public private(set) var exchange: DeltaExchange

    /// A link that has not talked to its peer yet.
    public init(exchange: DeltaExchange = DeltaExchange()) {
        self.exchange = exchange
    }

    /// Builds the signed bundle the state machine asks for, if any.
    public mutating func outgoing(_ replica: Replica, group: GroupMembership, local: VersionVector) throws -> [UInt8]? {
        guard case .send(let base) = exchange.tick(local: local) else { return nil }
        return try message(replica, group: group, local: local, above: base)
    }

    /// Authenticates the bundle, ingests its segments and prepares the answer.
    public mutating func incoming(
        _ bytes: [UInt8], replica: Replica, group: GroupMembership, segmentLimit: Int?
    ) throws -> LinkReceipt {
        let bundle = try Bundle(decoding: bytes, expectedGroup: group.id)
        let segments = segmentLimit.map { Array(bundle.segments.prefix($0)) } ?? bundle.segments
        let report = try replica.ingest(segments)
        var reply: [UInt8]?
        let local = try replica.versionVector()
        if segmentLimit == nil {
            if case .send(let base) = exchange.received(peerVector: bundle.senderVector, local: local) {
                reply = try message(replica, group: group, local: local, above: base)
            }
        }
        return LinkReceipt(
            sender: bundle.sender, senderVector: bundle.senderVector, ingested: segments,
            abandoned: bundle.segments.count - segments.count, report: report, reply: reply,
            localVector: local)
    }

    private mutating func message(_ replica: Replica, group: GroupMembership, local: VersionVector, above base: VersionVector) throws -> [UInt8] {
        let segments = try replica.delta(above: base)
        let bundle = Bundle(groupID: group.id, sender: replica.author, senderVector: local, segments: segments)
        exchange.sent(local: local)
        return bundle.encoded(signedBy: replica.signature(of:))
    }
}
