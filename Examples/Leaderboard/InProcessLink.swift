import HyzerEngine

/// An app's own transport, here within one process: each dial makes a pair of linked ends and
/// hands the far one to the other store's sync, which accepts it (`SyncController.accept(_:)`),
/// as a MultipeerConnectivity or WatchConnectivity session would hand over a peer's link.
struct InProcessLink: ByteLinkOpener {
    /// The sync that serves the far end.
    let far: SyncController

    func withLink<Result: Sendable>(_ body: @Sendable (any ByteLink) async -> Result) async throws -> Result {
        let (near, other) = InMemoryLink.pair()
        guard far.accept(other) else { throw InMemoryLinkError.closed }
        let result = await body(near)
        await near.close()
        return result
    }
}
