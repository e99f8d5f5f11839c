import Foundation
import HyzerDomain

/// Where the parts of an op's tail lie (docs/formats.md, "Op"): `clock ‖ payload`, the payload
/// starting with its kind byte, a score's payload going on with its round id. The one place that
/// knows these offsets: `OpTail` reads them in Swift, and `Schema.opColumns` makes the store's
/// generated columns of them, so no other code reads an op's bytes by offset.
enum OpLayout {
    /// Bytes of the clock at the start of every tail (milliseconds ‖ counter).
    static let clockBytes = 12
    /// The offset of the payload's kind byte.
    static let kindOffset = clockBytes
    /// The offset of a score's round id, right after the kind byte.
    static let scoredRoundOffset = kindOffset + 1
    /// Bytes of a round id.
    static let roundIDBytes = 16
    /// Bytes of a score's round id that the store's score index keeps (`opsByScoredRound`): 65,536
    /// values; a round's query compares the whole id too.
    static let scoredRoundPrefixBytes = 2
}

/// An op's tail, `clock ‖ payload`, read in place from whatever holds its bytes (an op's array, a
/// row's blob): its clock, its kind and a score's round without decoding the payload, and the
/// payload decoded.
struct OpTail<Bytes: RandomAccessCollection<UInt8>> where Bytes.Index == Int {
    /// The tail's bytes.
    let bytes: Bytes

    /// The tail of `bytes`.
    init(_ bytes: Bytes) { self.bytes = bytes }

    /// The clock the tail starts with; `nil` for a tail shorter than a clock.
    var clock: HLCTimestamp? {
        guard bytes.count >= OpLayout.clockBytes else { return nil }
        let start = bytes.startIndex
        var milliseconds: UInt64 = 0
        for index in start..<start + 8 { milliseconds = milliseconds << 8 | UInt64(bytes[index]) }
        var counter: UInt32 = 0
        for index in start + 8..<start + OpLayout.clockBytes { counter = counter << 8 | UInt32(bytes[index]) }
        return HLCTimestamp(physicalMilliseconds: milliseconds, counter: counter)
    }

    /// The payload's kind byte; `nil` for a tail with no payload. A byte no kind has is returned
    /// as it is: such an op stays in the log and changes no view.
    var kindByte: UInt8? {
        guard bytes.count > OpLayout.kindOffset else { return nil }
        return bytes[bytes.startIndex + OpLayout.kindOffset]
    }

    /// Whether the payload is of `kind`, read from its kind byte alone.
    func isKind(_ kind: OpPayload.Kind) -> Bool { kindByte == kind.rawValue }

    /// The round a score op names, read from its tail alone; `nil` for any other op, or a tail too
    /// short to hold one.
    var scoredRound: UUID? {
        guard isKind(.scoreRecorded), bytes.count >= OpLayout.scoredRoundOffset + OpLayout.roundIDBytes else { return nil }
        let start = bytes.startIndex + OpLayout.scoredRoundOffset
        return UUID(bytes: bytes[start..<start + OpLayout.roundIDBytes])
    }

    /// The payload, decoded.
    func payload() throws(ByteDecodingError) -> OpPayload {
        guard bytes.count > OpLayout.clockBytes else {
            throw .truncated(needed: OpLayout.clockBytes + 1, remaining: bytes.count)
        }
        return try OpPayload(decoding: bytes.dropFirst(OpLayout.clockBytes))
    }

    /// The payload decoded, or `nil` when it cannot be (such an op changes no view).
    var decodedPayload: OpPayload? { try? payload() }
}
