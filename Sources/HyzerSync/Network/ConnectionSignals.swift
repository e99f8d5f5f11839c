import Foundation
import HyzerKit

/// Ticks (the engines' clock) and "the store changed", fanned out to every connection of a
/// process. Each connection's mailbox holds at most one pending signal of each kind, and
/// delivering one needs no task of the connection's own: a burst of commits costs one delta,
/// a busy connection does not pile up ticks, and an idle connection costs no timer.
public final class ConnectionSignals: @unchecked Sendable {
    // @unchecked: `mailboxes` and `nextID` are only touched under `lock`.
    public enum Signal: Sendable, Hashable { case tick, storeChanged }

    /// One connection's mailbox: `deliver` receives a signal and what to call once it is handled.
    final class Mailbox: @unchecked Sendable {
        // @unchecked: `pending` is only touched under `lock`.
        private let deliver: @Sendable (Signal, @escaping @Sendable () -> Void) -> Void
        private let lock = NSLock()
        private var pending: Set<Signal> = []

        init(_ deliver: @escaping @Sendable (Signal, @escaping @Sendable () -> Void) -> Void) {
            self.deliver = deliver
        }

        func post(_ signal: Signal) {
            guard lock.withLock({ pending.insert(signal).inserted }) else { return }
            deliver(signal) { [self] in _ = lock.withLock { pending.remove(signal) } }
        }
    }

    private let lock = NSLock()
    private var mailboxes: [Int: Mailbox] = [:]
    private var nextID = 0

    public init() {}

    /// Registers a connection; `deliver` must hand the signal on without waiting.
    func subscribe(_ deliver: @escaping @Sendable (Signal, @escaping @Sendable () -> Void) -> Void) -> Int {
        lock.withLock {
            nextID += 1
            mailboxes[nextID] = Mailbox(deliver)
            return nextID
        }
    }

    func unsubscribe(_ id: Int) {
        _ = lock.withLock { mailboxes.removeValue(forKey: id) }
    }

    public func publish(_ signal: Signal) {
        for mailbox in lock.withLock({ Array(mailboxes.values) }) { mailbox.post(signal) }
    }

    /// Publishes a tick every `interval`, until cancelled.
    public func tick(every interval: Duration = .milliseconds(250)) async {
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            publish(.tick)
        }
    }

    /// Polls the store every `interval` and publishes each change, until cancelled.
    public func watch(_ monitor: StoreChangeMonitor, interval: Duration = .milliseconds(2)) async {
        var last = (try? monitor.version()) ?? 0
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            guard let version = try? monitor.version(), version != last else { continue }
            last = version
            publish(.storeChanged)
        }
    }
}
