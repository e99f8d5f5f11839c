/// SHA-1 (FIPS 180-4), used only to derive name-based UUIDv5 ids (RFC 9562 §5.5), which the
/// standard defines over SHA-1. libsodium, our cryptography library, has no SHA-1, and
/// Foundation on Linux exposes none, so this small implementation lives here.
///
/// SHA-1 is broken for collision resistance. Nothing here relies on it for security: UUIDv5
/// only needs the same name to give the same id on every replica. Never use it for signatures
/// or integrity — those are Ed25519 and BLAKE2b.
enum SHA1 {
    /// The 20-byte digest of `message`.
    static func digest(_ message: some Sequence<UInt8>) -> [UInt8] {
        var state: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0]
        var padded = Array(message)
        let messageBits = UInt64(padded.count) &* 8
        padded.append(0x80)
        while padded.count % 64 != 56 { padded.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) {
            padded.append(UInt8(truncatingIfNeeded: messageBits >> UInt64(shift)))
        }

        var schedule = [UInt32](repeating: 0, count: 80)
        for blockStart in stride(from: 0, to: padded.count, by: 64) {
            for index in 0..<16 {
                let offset = blockStart + index * 4
                schedule[index] =
                    UInt32(padded[offset]) << 24 | UInt32(padded[offset + 1]) << 16
                    | UInt32(padded[offset + 2]) << 8 | UInt32(padded[offset + 3])
            }
            for index in 16..<80 {
                schedule[index] = rotateLeft(
                    schedule[index - 3] ^ schedule[index - 8] ^ schedule[index - 14] ^ schedule[index - 16], by: 1
                )
            }
            compress(&state, schedule: schedule)
        }

        var digest: [UInt8] = []
        digest.reserveCapacity(20)
        for word in state {
            for shift in stride(from: 24, through: 0, by: -8) {
                digest.append(UInt8(truncatingIfNeeded: word >> UInt32(shift)))
            }
        }
        return digest
    }

    /// The 80 rounds over one expanded block.
    private static func compress(_ state: inout [UInt32], schedule: [UInt32]) {
        var a = state[0]
        var b = state[1]
        var c = state[2]
        var d = state[3]
        var e = state[4]
        for index in 0..<80 {
            let (mix, constant): (UInt32, UInt32) =
                switch index {
                case 0..<20: ((b & c) | (~b & d), 0x5A82_7999)
                case 20..<40: (b ^ c ^ d, 0x6ED9_EBA1)
                case 40..<60: ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
                default: (b ^ c ^ d, 0xCA62_C1D6)
                }
            let temporary = rotateLeft(a, by: 5) &+ mix &+ e &+ constant &+ schedule[index]
            e = d
            d = c
            c = rotateLeft(b, by: 30)
            b = a
            a = temporary
        }
        state[0] &+= a
        state[1] &+= b
        state[2] &+= c
        state[3] &+= d
        state[4] &+= e
    }

    private static func rotateLeft(_ value: UInt32, by count: UInt32) -> UInt32 {
        value << count | value >> (32 - count)
    }
}
