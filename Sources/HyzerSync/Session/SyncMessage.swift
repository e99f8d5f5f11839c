import HyzerDomain
import HyzerKit

/// What peers say to each other after the handshake, one message per encrypted frame.
///
/// ```
/// 1, 8, 10 —                    an older build's hello (its whole vector, summaries with 64-bit
///                               fingerprints, or no heartbeat): refused, `SyncFailure.olderPeer`
/// 11 hello  live:u8 ‖ heartbeat:u32 ‖ whole:u64 ‖ 16 × summary   whether the sender stays
///                               connected, the silence in milliseconds after which it sends a
///                               heartbeat (a listener's sets the pace of both sides:
///                               `SyncEngine.heartbeatMilliseconds`), its whole vector's
///                               fingerprint, and its summaries of the root's 16 ranges
///                               (`Reconciliation`); starts the exchange
/// 9 reconcile splits ‖ entries  the next step of reconciling the two vectors (`ReconcileStep`)
/// 2 bundle  final:u8 ‖ bytes    a part of a connection bundle (`Bundle.connectionEncoded`); the
///                               part with final = 1 completes it
/// 3 have    vector              what the sender holds now (after ingesting): the entries that
///                               changed since its hello or previous `have`; in one-shot mode,
///                               the answer to `done`
/// 4 done    —                   one-shot: the sender has sent its whole delta
/// 5 bye     reason:string       the sender closes, and why
/// 6 heartbeat [digest:u64]       the sender is alive (sent after a silence; docs/sync-protocol.md);
///                               live, it carries the digest of what the sender believes the
///                               peer holds (`HoldingsDigest`); an empty heartbeat still decodes
/// 7 holds   vector              live: everything the sender holds or holds aside, whole; the
///                               answer to a heartbeat whose digest disagrees with it
/// ```
public enum SyncMessage: Equatable, Sendable {
    /// Whether the sender asks to stay connected, the silence after which it sends a heartbeat,
    /// its whole vector's fingerprint, and its summaries of the root's 16 ranges (tag 11).
    case hello(live: Bool, heartbeatMilliseconds: UInt32, fingerprint: UInt64, summaries: [RangeSummary])
    /// The next step of reconciling the two sides' vectors (tag 9).
    case reconcile(ReconcileStep)
    /// The hello of an older build (tag 1: its whole vector; tag 8: summaries with 64-bit
    /// fingerprints; tag 10: no heartbeat; body unread).
    case olderHello
    /// A part of a connection bundle (`Bundle.connectionEncoded`); `final` completes it (tag 2).
    case bundlePart(bytes: [UInt8], final: Bool)
    /// The entries of the sender's vector that changed since its hello or previous `have` (tag 3).
    case have(VersionVector)
    /// One-shot: the sender sent its whole delta (tag 4).
    case done
    /// The sender closes, and why; at most 200 characters are sent, 1,024 bytes read (tag 5).
    case bye(reason: String)
    /// The sender is alive (tag 6, empty).
    case heartbeat
    /// A heartbeat that carries the digest of what its sender believes the peer holds.
    case heartbeatWithDigest(UInt64)
    /// Live: everything the sender holds or holds aside, whole (tag 7).
    case holds(VersionVector)

    /// The hello of a side holding `vector` that heartbeats after `heartbeatMilliseconds` of silence.
    public static func hello(_ vector: VersionVector, live: Bool, heartbeatMilliseconds: UInt32 = 5_000) -> SyncMessage {
        let reconciliation = Reconciliation(local: vector)
        return .hello(
            live: live, heartbeatMilliseconds: heartbeatMilliseconds, fingerprint: reconciliation.wholeFingerprint,
            summaries: reconciliation.greeting)
    }

    /// The message's bytes: its tag, then its body.
    public func encoded() -> [UInt8] {
        var writer = ByteWriter()
        switch self {
        case .hello(let live, let heartbeat, let fingerprint, let summaries):
            writer.write(UInt8(11))
            writer.write(live)
            writer.write(heartbeat)
            writer.write(fingerprint)
            for summary in summaries { summary.write(into: &writer) }
        case .reconcile(let step):
            writer.write(UInt8(9))
            step.write(into: &writer)
        case .olderHello:
            writer.write(UInt8(1))
        case .bundlePart(let bytes, let final):
            writer.write(UInt8(2))
            writer.write(final)
            writer.write(raw: bytes)
        case .have(let vector):
            writer.write(UInt8(3))
            Bundle.write(vector, into: &writer)
        case .done:
            writer.write(UInt8(4))
        case .bye(let reason):
            writer.write(UInt8(5))
            writer.write(String(reason.prefix(200)))
        case .heartbeat:
            writer.write(UInt8(6))
        case .heartbeatWithDigest(let digest):
            writer.write(UInt8(6))
            writer.write(digest)
        case .holds(let vector):
            writer.write(UInt8(7))
            Bundle.write(vector, into: &writer)
        }
        return writer.bytes
    }

    /// Reads exactly one message; throws `ByteDecodingError` for an unknown tag, a malformed body or
    /// trailing bytes.
    public init(decoding bytes: [UInt8]) throws(ByteDecodingError) {
        var reader = ByteReader(bytes)
        switch try reader.readByte() {
        case 1, 8, 10:
            self = .olderHello
            return
        case 11:
            let live = try reader.readBool()
            let heartbeat = try reader.readUInt32()
            let fingerprint = try reader.readUInt64()
            var summaries: [RangeSummary] = []
            for _ in 0..<AuthorRange.fanout { summaries.append(try RangeSummary.read(&reader)) }
            self = .hello(live: live, heartbeatMilliseconds: heartbeat, fingerprint: fingerprint, summaries: summaries)
        case 9: self = .reconcile(try ReconcileStep.read(&reader))
        case 2:
            let final = try reader.readBool()
            self = .bundlePart(bytes: try reader.readRaw(reader.remaining), final: final)
        case 3: self = .have(try Bundle.readVector(&reader))
        case 4: self = .done
        case 5: self = .bye(reason: try reader.readString(maximumBytes: 1024))
        case 6: self = reader.remaining == 0 ? .heartbeat : .heartbeatWithDigest(try reader.readUInt64())
        case 7: self = .holds(try Bundle.readVector(&reader))
        case let other: throw .unknownTag(other, field: "sync message")
        }
        try reader.expectEnd()
    }
}
