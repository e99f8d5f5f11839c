import HyzerSync

/// The world's live connections: those open, each dialer's reconnect policy toward each peer
/// it dials (the shipped `Redialer`), and the devices whose connections have news to tell.
struct LinkTable {
    /// Open connections by id.
    var open: [Int: SimulatedConnection] = [:]
    /// The id the latest connection took.
    var lastID = 0
    /// Each dialer's backoff and the epoch it dials with next.
    var redialers: [DialKey: Redialer] = [:]
    /// Devices whose stores changed since their connections were last told.
    var changed: Set<Int> = []

    /// The open connections, oldest first.
    var inOrder: [SimulatedConnection] { open.values.sorted { $0.id < $1.id } }

    /// The next connection's id.
    mutating func nextID() -> Int {
        lastID += 1
        return lastID
    }
}
