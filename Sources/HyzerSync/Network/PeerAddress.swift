/// `HOST:PORT` as the command line takes it (`[::1]:7070` for IPv6).
public struct PeerAddress: Hashable, Sendable, CustomStringConvertible {
    /// A host name or an IP address, without brackets.
    public let host: String
    /// The TCP port, 0 to 65535 (0 when listening picks a free port).
    public let port: Int

    /// An address from its parts, unchecked.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Reads `HOST:PORT` or `[IPv6]:PORT`; `nil` for text without a host or with a port outside 0...65535.
    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else {
            return nil
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { return nil }
        self.init(host: host, port: port)
    }

    /// `HOST:PORT`, an IPv6 host in brackets.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Whether the host is a loopback address (or `localhost`): nobody else on the LAN reaches it.
    public var isLoopback: Bool { host == "localhost" || host == "::1" || host.hasPrefix("127.") }
}
