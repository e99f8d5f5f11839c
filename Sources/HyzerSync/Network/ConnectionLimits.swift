import NIOCore

/// Open connections, in total and, before their handshake completes, per source address
/// (docs/security.md, "TCP sync under abuse").
///
/// When a source already holds its share of pending connections, a new one from it takes the
/// place of its oldest that has sent no whole first message, or else of its oldest whose first
/// message has not proved the group secret (has not verified): that one is told
/// `ListenerBusy.addressCrowded` and closed. A crowd from the address a member also uses (a NAT,
/// a shared Wi-Fi) so keeps only its own share and cannot keep the member out: the member's first
/// message arrives with its connection, and from then on no silent or half-open stranger takes its
/// place, however long the server's tasks take to verify it (strangers that send whole messages
/// have them refused and are closed at once). Only when every pending connection of the source
/// has proved the secret is the new one refused; and when the process holds `total`
/// connections, every new one is (`ListenerBusy.full`).
actor ConnectionLimits {
    typealias ID = UInt64

    enum Entry: Equatable {
        /// `madeRoom`: an older pending connection from the source was closed for it.
        case admitted(ID, madeRoom: Bool)
        case refused(ListenerBusy)
    }

    private struct Pending {
        let channel: any Channel
        let firstFrame: FirstFrameArrival
        var verified = false

        /// No whole first message yet: taken for a newcomer before one that spoke.
        var silent: Bool { !verified && !firstFrame.hasArrived }
    }

    let total: Int
    let unauthenticatedPerSource: Int
    private var open = 0
    private var lastID: ID = 0
    /// The pending connections of each source, oldest first (at most `unauthenticatedPerSource`).
    private var pendingBySource: [String: [ID]] = [:]
    private var pending: [ID: Pending] = [:]
    /// Connections closed to make room, until they leave.
    private var evicted: Set<ID> = []

    init(total: Int, unauthenticatedPerSource: Int) {
        self.total = total
        self.unauthenticatedPerSource = max(1, unauthenticatedPerSource)
    }

    /// Connections open now, this one included once admitted.
    var openConnections: Int { open }

    /// Admits a new connection from `source` (making room if it can), or says why not; the
    /// caller tells a refused one why and closes it.
    func enter(from source: String, channel: any Channel, firstFrame: FirstFrameArrival) -> Entry {
        guard open < total else { return .refused(.full) }
        var queue = pendingBySource[source, default: []]
        var madeRoom = false
        if queue.count >= unauthenticatedPerSource {
            let silent = queue.firstIndex { pending[$0]?.silent == true }
            guard let index = silent ?? queue.firstIndex(where: { pending[$0]?.verified == false }) else {
                return .refused(.addressCrowded)
            }
            let victim = queue.remove(at: index)
            if let entry = pending.removeValue(forKey: victim) {
                evicted.insert(victim)
                madeRoom = true
                ListenerBusy.addressCrowded.close(entry.channel)
            }
        }
        lastID += 1
        open += 1
        queue.append(lastID)
        pendingBySource[source] = queue
        pending[lastID] = Pending(channel: channel, firstFrame: firstFrame)
        return .admitted(lastID, madeRoom: madeRoom)
    }

    /// The connection's first message verified: no newcomer takes its place.
    func verified(_ id: ID) {
        pending[id]?.verified = true
    }

    /// The connection's handshake completed: it no longer counts against its source.
    func authenticated(_ id: ID, from source: String) {
        release(id, from: source)
    }

    /// Whether the connection was closed to make room for a newer one.
    func wasEvicted(_ id: ID) -> Bool {
        evicted.contains(id)
    }

    func leave(_ id: ID, from source: String) {
        open -= 1
        evicted.remove(id)
        release(id, from: source)
    }

    private func release(_ id: ID, from source: String) {
        guard pending.removeValue(forKey: id) != nil else { return }
        pendingBySource[source]?.removeAll { $0 == id }
        if pendingBySource[source]?.isEmpty == true { pendingBySource[source] = nil }
    }
}

extension ListenerBusy {
    /// Tells the dialer on `channel`, a connection whose task runs, this notice and closes it: at
    /// once once the frame is written, and after a second whatever happens (a dialer that does not
    /// read keeps nothing). The task sees its connection end.
    func close(_ channel: any Channel) {
        let frame = self.frame
        channel.eventLoop.execute {
            channel.writeAndFlush(ByteBuffer(bytes: frame)).whenComplete { _ in channel.close(promise: nil) }
            _ = channel.eventLoop.scheduleTask(in: .seconds(1)) { channel.close(promise: nil) }
        }
    }
}
