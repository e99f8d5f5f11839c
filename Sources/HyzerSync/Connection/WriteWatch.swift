import Foundation

/// The write a connection has in progress, and since when: a peer that leaves one frame
/// unaccepted for `timeout` has stopped reading (`SyncFailure.stalled`). The shell checks it on
/// the connection's ticks, and a write in progress makes its mailbox take the tick at its
/// deadline: no timer per write (docs/performance.md, "A crowd").
final class WriteWatch: @unchecked Sendable {
    // @unchecked: `since` is only touched under `lock`.
    private let lock = NSLock()
    private var since: ContinuousClock.Instant?
    private let timeout: Duration
    private let mailbox: ConnectionSignals.Mailbox

    init(timeout: Duration, mailbox: ConnectionSignals.Mailbox) {
        self.timeout = timeout
        self.mailbox = mailbox
    }

    /// A write begins.
    func begin() {
        let now = ContinuousClock.now
        lock.withLock {
            assert(since == nil, "one write at a time")
            since = now
        }
        mailbox.writeDue(now + timeout)
    }

    /// The write was accepted.
    func end() {
        lock.withLock {
            assert(since != nil, "a write ends after it began")
            since = nil
        }
        mailbox.writeDue(nil)
    }

    /// A write has been in progress for `timeout` or longer.
    var isStalled: Bool {
        let now = ContinuousClock.now
        return lock.withLock { since.map { now - $0 >= timeout } ?? false }
    }
}
