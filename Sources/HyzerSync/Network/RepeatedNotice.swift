import Foundation

/// Whether a notice that may repeat is worth logging: the first time, when its text changes,
/// and then once per `interval` while it repeats. A store held by another process fails every
/// connection that has ops to ingest until it is released, and a dialer retries an unreachable
/// peer every two seconds: each says so once a minute, not every few seconds.
final class RepeatedNotice: @unchecked Sendable {
    // @unchecked: `last` is only touched under `lock`.
    private let lock = NSLock()
    private var last: (text: String, at: ContinuousClock.Instant)?
    let interval: Duration

    init(interval: Duration = .seconds(60)) {
        self.interval = interval
    }

    /// True when `text` should be logged now (and remembered as logged).
    func isDue(_ text: String) -> Bool {
        let now = ContinuousClock.now
        return lock.withLock {
            if let last, last.text == text, now - last.at < interval { return false }
            last = (text, now)
            return true
        }
    }
}
