/// A DNS-SD TXT record: `key=value` strings, each prefixed by its length (RFC 6763, section 6).
/// Read from the LAN, it is untrusted: a record longer than `bytesMax`, or with more than
/// `entriesMax` entries, is refused whole; an entry that is not printable ASCII `key=value` is
/// skipped. Reading never traps.
public struct ServiceTXT: Hashable, Sendable {
    /// The longest record read: several times what `DiscoveryRecord` writes.
    public static let bytesMax = 512
    /// The most entries read from one record.
    public static let entriesMax = 16

    /// The entries by key (keys in lower case, as DNS-SD compares them).
    public let entries: [String: String]

    /// A record of `entries`.
    public init(_ entries: [String: String]) {
        self.entries = entries
    }

    /// Reads a record in its wire form; `nil` when it is too long, holds too many entries or
    /// ends inside an entry.
    public init?(wire: [UInt8]) {
        guard wire.count <= Self.bytesMax else { return nil }
        var entries: [String: String] = [:]
        var index = 0
        var count = 0
        while index < wire.count {
            let length = Int(wire[index])
            let start = index + 1
            guard start + length <= wire.count else { return nil }
            count += 1
            guard count <= Self.entriesMax else { return nil }
            index = start + length
            let entry = wire[start..<index]
            guard entry.allSatisfy({ (0x20...0x7E).contains($0) }), let equals = entry.firstIndex(of: UInt8(ascii: "=")),
                equals > start
            else { continue }
            let key = String(decoding: entry[..<equals], as: UTF8.self).lowercased()
            // The first occurrence of a key counts (RFC 6763, section 6.4).
            if entries[key] == nil { entries[key] = String(decoding: entry[(equals + 1)...], as: UTF8.self) }
        }
        self.entries = entries
    }

    /// The record in its wire form, entries sorted by key; an entry longer than 255 bytes is left out.
    public var wire: [UInt8] {
        var bytes: [UInt8] = []
        for (key, value) in entries.sorted(by: { $0.key < $1.key }) {
            let entry = Array("\(key)=\(value)".utf8)
            guard entry.count <= 255 else { continue }
            bytes.append(UInt8(entry.count))
            bytes += entry
        }
        return bytes
    }

    /// The value of `key`, if the record has it.
    public subscript(key: String) -> String? { entries[key.lowercased()] }
}
