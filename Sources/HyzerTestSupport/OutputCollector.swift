import Foundation

/// Collects what a running process writes to a pipe, so a test can wait for a line without
/// blocking on the pipe.
public final class OutputCollector: @unchecked Sendable {
    // @unchecked: `text` is only touched under `lock`; the handler runs on Foundation's queue.
    private let lock = NSLock()
    private var text = ""

    public init(_ pipe: Pipe) {
        pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self, !data.isEmpty else {
                handle.readabilityHandler = nil
                return
            }
            self.lock.lock()
            self.text += String(decoding: data, as: UTF8.self)
            self.lock.unlock()
        }
    }

    /// Everything collected so far.
    public var output: String {
        lock.lock()
        defer { lock.unlock() }
        return text
    }

    /// Waits up to `seconds` for the output to satisfy `condition`.
    public func wait(seconds: Double = 20, until condition: (String) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition(output) { return true }
            usleep(5_000)
        }
        return condition(output)
    }
}
