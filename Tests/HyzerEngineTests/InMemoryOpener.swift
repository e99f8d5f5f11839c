import HyzerKit
import HyzerSync
import Logging

/// Opens in-memory links whose far end a listener on `replica` serves, one per open.
struct InMemoryOpener: ByteLinkOpener {
    let replica: Replica
    let logger: Logger

    func withLink<Result: Sendable>(_ body: @Sendable (any ByteLink) async -> Result) async throws -> Result {
        guard let group = try replica.group() else { throw InMemoryLinkError.closed }
        let (near, far) = InMemoryLink.pair()
        var listener = PeerConnection(
            replica: replica, group: group, role: .listener, mode: .live, logger: logger, signals: ConnectionSignals(),
            budget: BundleBudget())
        listener.configuration.firstMessageTimeoutMilliseconds = nil
        let listening = Task { [listener] in await listener.run(over: far) }
        let result = await body(near)
        await near.close()
        _ = await listening.value
        return result
    }
}
