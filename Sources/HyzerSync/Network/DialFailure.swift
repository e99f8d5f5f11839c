import Foundation
import NIOCore
import NIOPosix

/// Why a dial failed, in one line with the address and the system's reason — "could not
/// connect to 127.0.0.1:9: connection refused" — in place of NIO's nested descriptions
/// (`NIOConnectionError`, one `SingleConnectionFailure` per address tried, an `IOError`).
public struct DialFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// The address dialed.
    public let address: PeerAddress
    /// The system's reason, lower case: "connection refused", "no route to host", …
    public let reason: String

    /// A failure to reach `address` for `reason`.
    public init(address: PeerAddress, reason: String) {
        self.address = address
        self.reason = reason
    }

    init(address: PeerAddress, error: any Error) {
        self.init(address: address, reason: Self.reason(error))
    }

    /// `could not connect to HOST:PORT: REASON`.
    public var description: String { "could not connect to \(address): \(reason)" }

    /// One reason per distinct failure (a host name may resolve to several addresses, each tried).
    static func reason(_ error: any Error) -> String {
        switch error {
        case let error as NIOConnectionError:
            if let lookup = error.dnsAError ?? error.dnsAAAAError, error.connectionErrors.isEmpty { return reason(lookup) }
            var reasons: [String] = []
            for failure in error.connectionErrors {
                let text = reason(failure.error)
                if !reasons.contains(text) { reasons.append(text) }
            }
            return reasons.isEmpty ? "the host name has no address" : reasons.joined(separator: ", ")
        case let error as IOError:
            return String(cString: strerror(error.errnoCode)).lowercased()
        case let error as SocketAddressError.UnknownHost:
            return "unknown host (\(error.errorDescription.lowercased()))"
        case ChannelError.connectTimeout(let timeout):
            return "no answer within \(timeout.nanoseconds / 1_000_000_000) s"
        default:
            return "\(error)"
        }
    }
}
