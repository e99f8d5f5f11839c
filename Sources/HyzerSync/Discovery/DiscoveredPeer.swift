import Synchronization

/// A member found on the LAN that `serve --discover` keeps connected (docs/discovery.md,
/// "Dialing"): dialed at the address it was last resolved to, and, once its service is gone,
/// dialed again with the usual backoff for `graceAfterGone` before it is given up.
final class DiscoveredPeer: ByteLinkOpener, CustomStringConvertible {
    /// How long a peer whose service was withdrawn is still dialed: a restart re-announces
    /// within it, a device that left for good is let go.
    static let graceAfterGone = Duration.seconds(30)
    /// Dials without the peer ever proving itself before it is given up: a stranger with a
    /// copied tag leaves its place to the next service found.
    static let dialsWithoutProofMax = 3

    private let state: Mutex<State>

    private struct State {
        var name: String
        var address: PeerAddress
        var goneSince: ContinuousClock.Instant?
        var finished = false
        var proved = false
        var dials = 0
    }

    init(name: String, address: PeerAddress) {
        state = Mutex(State(name: name, address: address))
    }

    /// The address dialed next.
    var address: PeerAddress { state.withLock { $0.address } }
    /// The name of the service it was last found under.
    var name: String { state.withLock { $0.name } }
    var description: String { "\(address)" }

    /// The service is (still, or again) on the LAN, under `name` at `address`.
    func seen(as name: String, at address: PeerAddress) {
        state.withLock { state in
            state.name = name
            state.address = address
            state.goneSince = nil
        }
    }

    /// The service is no longer on the LAN (nor a member's).
    func gone(now: ContinuousClock.Instant = .now) {
        state.withLock { state in
            if state.goneSince == nil { state.goneSince = now }
        }
    }

    /// Whether to dial it again: while on the LAN, and for `graceAfterGone` after; never
    /// after `dialsWithoutProofMax` dials on which it did not prove itself.
    func isWanted(now: ContinuousClock.Instant = .now) -> Bool {
        state.withLock { state in
            guard state.proved || state.dials < Self.dialsWithoutProofMax else { return false }
            return state.goneSince.map { now - $0 < Self.graceAfterGone } ?? true
        }
    }

    /// A connection to it ended; `proved`: the peer proved itself on it.
    func connectionEnded(proved: Bool) {
        state.withLock { state in state.proved = state.proved || proved }
    }

    /// Whether it ever proved itself.
    var hasProved: Bool { state.withLock { $0.proved } }

    /// Its dialer ended; a new announcement under its name starts a new one.
    var isFinished: Bool {
        get { state.withLock { $0.finished } }
        set { state.withLock { $0.finished = newValue } }
    }

    func withLink<Result: Sendable>(_ body: @Sendable (any ByteLink) async -> Result) async throws -> Result {
        state.withLock { $0.dials += 1 }
        return try await TCPLink.Opener(address: address).withLink(body)
    }
}
