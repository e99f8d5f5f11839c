import HyzerKit
import NIOCore
import NIOPosix

extension PeerDialer {
    /// Asks the member at `address` to admit this device: sends `request` as the connection's
    /// first frame and returns the first frame the member replies with, or `nil` when it closes
    /// without one (it does not hold the invitation, or is no member) or says nothing within
    /// `timeout`. Throws `DialFailure` when the connection cannot be made.
    public static func askToJoin(_ address: PeerAddress, request: JoinRequest, timeout: Duration = .seconds(10)) async throws -> [UInt8]? {
        let channel = try await connect(address)
        let close = channel.channel
        return try await withThrowingTaskGroup(of: [UInt8]?.self) { tasks in
            tasks.addTask {
                try await channel.executeThenClose { inbound, outbound in
                    try await outbound.write(ByteBuffer(bytes: request.bytes))
                    do {
                        for try await frame in inbound { return Array(frame.readableBytesView) }
                    } catch {}  // a reset is no reply
                    return nil
                }
            }
            tasks.addTask {
                try await Task.sleep(for: timeout)
                try? await close.close()
                return nil
            }
            defer { tasks.cancelAll() }
            return try await tasks.next() ?? nil
        }
    }
}
