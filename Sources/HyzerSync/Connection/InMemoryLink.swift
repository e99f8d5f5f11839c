import Foundation

/// One end of a link whose two ends live in one process: for an app that carries frames over a
/// channel of its own (it pumps one end's frames into its channel), and for tests. Each
/// direction holds at most `capacity` frames; a sender waits for room, as on a socket.
public struct InMemoryLink: ByteLink {
    private let inbox: FrameQueue
    private let outbox: FrameQueue

    /// Two connected ends: what one sends, the other receives.
    public static func pair(capacity: Int = 4) -> (InMemoryLink, InMemoryLink) {
        let (forth, back) = (FrameQueue(capacity: capacity), FrameQueue(capacity: capacity))
        return (InMemoryLink(inbox: back, outbox: forth), InMemoryLink(inbox: forth, outbox: back))
    }

    /// Hands `frame` to the other end; suspends while its direction holds `capacity` frames, and
    /// throws `InMemoryLinkError` once the link is closed.
    public func send(_ frame: [UInt8]) async throws { try await outbox.put(frame) }

    /// The next frame the other end sent; `nil` once either end closed and every frame sent before was taken.
    public func receive() async throws -> [UInt8]? { try await inbox.take() }

    /// Closes both directions: the other end receives what was sent before, then `nil`.
    public func close() async {
        outbox.close()
        inbox.close()
    }
}

/// Why an in-memory link refused a frame.
public enum InMemoryLinkError: Error, Equatable, Sendable {
    /// The link was closed (by either end).
    case closed
    /// A second task called `receive` while one waited: one task receives at a time.
    case receiveInProgress
}

/// One direction of an in-memory link: a bounded queue with one receiver and waiting senders.
/// A waiting call ends when its task is cancelled.
final class FrameQueue: @unchecked Sendable {
    // @unchecked: every field is only touched under `lock`.
    private let lock = NSLock()
    private let capacity: Int
    private var frames: [[UInt8]] = []
    private var head = 0
    private var closed = false
    private var receiver: CheckedContinuation<[UInt8]?, any Error>?
    /// Senders waiting for room, in order, each with its frame.
    private var senders: [(id: Int, frame: [UInt8], continuation: CheckedContinuation<Void, any Error>)] = []
    private var nextSender = 0

    init(capacity: Int) { self.capacity = max(1, capacity) }

    private var queued: Int { frames.count - head }

    func put(_ frame: [UInt8]) async throws {
        let id = lock.withLock {
            nextSender += 1
            return nextSender
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                lock.lock()
                if closed {
                    lock.unlock()
                    continuation.resume(throwing: InMemoryLinkError.closed)
                } else if Task.isCancelled {
                    lock.unlock()
                    continuation.resume(throwing: CancellationError())
                } else if let receiver {
                    self.receiver = nil
                    lock.unlock()
                    receiver.resume(returning: frame)
                    continuation.resume()
                } else if queued < capacity {
                    frames.append(frame)
                    lock.unlock()
                    continuation.resume()
                } else {
                    senders.append((id, frame, continuation))
                    lock.unlock()
                }
            }
        } onCancel: {
            let waiting = lock.withLock { () -> CheckedContinuation<Void, any Error>? in
                guard let index = senders.firstIndex(where: { $0.id == id }) else { return nil }
                return senders.remove(at: index).continuation
            }
            waiting?.resume(throwing: CancellationError())
        }
    }

    func take() async throws -> [UInt8]? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[UInt8]?, any Error>) in
                lock.lock()
                if queued > 0 {
                    let frame = frames[head]
                    head += 1
                    if head == frames.count {
                        frames.removeAll(keepingCapacity: true)
                        head = 0
                    }
                    // A waiting sender's frame takes the place just freed.
                    let sender = senders.isEmpty ? nil : senders.removeFirst()
                    if let sender { frames.append(sender.frame) }
                    lock.unlock()
                    sender?.continuation.resume()
                    continuation.resume(returning: frame)
                } else if closed {
                    lock.unlock()
                    continuation.resume(returning: nil)
                } else if Task.isCancelled {
                    lock.unlock()
                    continuation.resume(throwing: CancellationError())
                } else if receiver != nil {
                    lock.unlock()
                    continuation.resume(throwing: InMemoryLinkError.receiveInProgress)
                } else {
                    receiver = continuation
                    lock.unlock()
                }
            }
        } onCancel: {
            let waiting = lock.withLock { () -> CheckedContinuation<[UInt8]?, any Error>? in
                defer { receiver = nil }
                return receiver
            }
            waiting?.resume(throwing: CancellationError())
        }
    }

    /// Frames already queued are still received; waiting senders fail, a waiting receiver gets `nil`.
    func close() {
        let (receiver, senders) = lock.withLock {
            () -> (CheckedContinuation<[UInt8]?, any Error>?, [CheckedContinuation<Void, any Error>]) in
            guard !closed else { return (nil, []) }
            closed = true
            defer {
                self.receiver = nil
                self.senders = []
            }
            return (self.receiver, self.senders.map(\.continuation))
        }
        receiver?.resume(returning: nil)
        for sender in senders { sender.resume(throwing: InMemoryLinkError.closed) }
    }
}
