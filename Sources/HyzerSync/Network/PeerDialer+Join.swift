import HyzerKit

extension PeerDialer {
    /// Asks the member `opener` reaches to admit this device: sends `request` as the link's first
    /// frame and returns the first frame the member replies with, or `nil` when it closes
    /// without one (it does not hold the invitation, or is no member), says nothing within
    /// `timeout`, or replies with more than a handshake frame may hold. Throws what `opener`
    /// throws when the link cannot be opened (`DialFailure` over TCP).
    public static func askToJoin(_ opener: some ByteLinkOpener, request: JoinRequest, timeout: Duration = .seconds(10)) async throws
        -> [UInt8]?
    {
        try await opener.withLink { link in
            await withTaskGroup(of: [UInt8]?.self) { tasks in
                tasks.addTask {
                    do {
                        try await link.send(request.bytes)
                        guard let reply = try await link.receive(), reply.count <= SyncEngine.handshakeFrameBytesMax else { return nil }
                        return reply
                    } catch {
                        return nil  // a reset is no reply
                    }
                }
                tasks.addTask {
                    try? await Task.sleep(for: timeout)
                    return nil
                }
                defer { tasks.cancelAll() }
                return await tasks.next() ?? nil
            }
        }
    }
}
