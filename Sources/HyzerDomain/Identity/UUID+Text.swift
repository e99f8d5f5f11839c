import Foundation

extension UUID {
    /// Lowercase `8-4-4-4-12` text, as ids appear in ops, views and output. Formatted by hand
    /// from the bytes: Foundation's `uuidString` goes through `snprintf`, which dominated the
    /// cost of building views.
    public var lowercased: String {
        withUnsafeBytes(of: uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { buffer in
                let digits: StaticString = "0123456789abcdef"
                var out = 0
                for (index, byte) in bytes.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        buffer[out] = UInt8(ascii: "-")
                        out += 1
                    }
                    buffer[out] = digits.utf8Start[Int(byte >> 4)]
                    buffer[out + 1] = digits.utf8Start[Int(byte & 0x0f)]
                    out += 2
                }
                return out
            }
        }
    }

    /// Byte order: the order of the UUIDs' text, without making the text.
    public static func precedes(_ lhs: UUID, _ rhs: UUID) -> Bool {
        withUnsafeBytes(of: lhs.uuid) { left in
            withUnsafeBytes(of: rhs.uuid) { right in left.lexicographicallyPrecedes(right) }
        }
    }
}
