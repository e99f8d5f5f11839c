import Foundation

/// The dialers' ephemeral keys of the most recent first messages a listener process verified
/// (docs/sync-protocol.md, "Replays"): a first message whose key is here is a replay, refused
/// before any key exchange.
///
/// What it is: a record of the last `capacity` verified first messages, in memory, shared by
/// every connection one `serve` accepts, forgetting the oldest first. A key enters only once its
/// message's MAC verifies, so only a group member can push a recorded message out of it, and a
/// member can run a real handshake anyway. An honest dialer draws a fresh ephemeral key for every
/// connection, so it is never refused. What it is not: kept across a restart (a message recorded
/// before one is answered once after it, then refused again), or shared between devices (each
/// listener answers a recorded message once). It holds no clock and draws nothing: the same
/// messages in the same order get the same answers.
public final class SeenHellos: @unchecked Sendable {
    // @unchecked: `keys` and `order` are only touched under `lock`.
    /// The keys remembered at most; each costs about 100 bytes.
    public let capacity: Int
    private let lock = NSLock()
    private var keys: Set<[UInt8]> = []
    /// The keys in the order they arrived, a ring of `capacity` slots.
    private var order: [[UInt8]] = []
    private var next = 0

    /// A record of the last `capacity` first messages (at least 1); about 100 bytes each.
    public init(capacity: Int = 16_384) {
        self.capacity = max(1, capacity)
    }

    /// Records `key`; `false` when it was seen already (a replay).
    public func insert(_ key: [UInt8]) -> Bool {
        lock.withLock {
            guard !keys.contains(key) else { return false }
            if order.count < capacity {
                order.append(key)
            } else {
                keys.remove(order[next])
                order[next] = key
                next = (next + 1) % capacity
            }
            keys.insert(key)
            return true
        }
    }

    /// Keys remembered now.
    public var count: Int { lock.withLock { keys.count } }
}
