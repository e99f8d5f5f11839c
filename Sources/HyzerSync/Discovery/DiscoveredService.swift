/// A service found on the LAN (`ServiceDiscovery.browse(into:)`): its instance name, the
/// address it was resolved to, and its TXT record. Anyone on the LAN can advertise anything:
/// a service is only a candidate, until a handshake proves the peer.
public struct DiscoveredService: Hashable, Sendable {
    /// The longest instance name kept, in UTF-8 bytes (a DNS label's 63).
    public static let nameBytesMax = 63

    /// The instance name, unique among the services of one type on the LAN.
    public let name: String
    /// Where the service listens.
    public let address: PeerAddress
    /// What the service says about itself.
    public let txt: ServiceTXT

    /// A service named `name` at `address` with `txt`.
    public init(name: String, address: PeerAddress, txt: ServiceTXT) {
        self.name = name
        self.address = address
        self.txt = txt
    }

    /// Whether `name` is one a service may have: 1 to `nameBytesMax` bytes of UTF-8 without
    /// control characters.
    public static func isValidName(_ name: String) -> Bool {
        let bytes = name.utf8
        return !bytes.isEmpty && bytes.count <= nameBytesMax && !name.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
    }
}
