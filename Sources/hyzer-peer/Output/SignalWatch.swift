import Dispatch
import Foundation

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
