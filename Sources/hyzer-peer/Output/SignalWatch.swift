import Dispatch
import Foundation

/// Runs a handler when the process receives one of the given signals (SIGINT, SIGTERM), in
/// place of the default of dying mid-write.
final class SignalWatch {
    private let sources: [DispatchSourceSignal]

    init(_ signals: Int32..., handler: @escaping @Sendable () -> Void) {
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler(handler: handler)
            source.resume()
            return source
        }
    }

    func stop() {
        for source in sources { source.cancel() }
    }
}
