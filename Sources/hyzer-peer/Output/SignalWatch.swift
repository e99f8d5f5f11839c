import Dispatch
import Foundation
import Synchronization

/// Runs a handler, given the signal's name, when the process receives one of the given signals
/// (SIGINT, SIGTERM), in place of the default of dying mid-write.
final class SignalWatch {
    private let sources: [DispatchSourceSignal]

    init(_ signals: Int32..., handler: @escaping @Sendable (String) -> Void) {
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            let name = number == SIGINT ? "SIGINT" : number == SIGTERM ? "SIGTERM" : "signal \(number)"
            source.setEventHandler { handler(name) }
            source.resume()
            return source
        }
    }

    func stop() {
        for source in sources { source.cancel() }
    }
}

/// The task a signal stops. The watch is installed before the task starts (a command that has
/// printed its port can be interrupted at once, never killed by the default action), so a signal
/// may come first: the task is then cancelled as soon as it is given.
final class StopSwitch: Sendable {
    private enum State {
        case waiting
        case stopped
        case running(Task<Void, any Error>)
    }

    private let state = Mutex(State.waiting)

    func stop() {
        state.withLock { state in
            if case .running(let task) = state { task.cancel() }
            state = .stopped
        }
    }

    func run(_ task: Task<Void, any Error>) {
        state.withLock { state in
            if case .stopped = state { task.cancel() } else { state = .running(task) }
        }
    }
}
