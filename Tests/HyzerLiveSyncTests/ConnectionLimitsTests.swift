import NIOCore
import NIOEmbedded
import Testing

@testable import HyzerSync

extension LiveSyncTests {
    /// The listener's pending-connection limits as a state machine, with no sockets: which
    /// pending connection of a crowded address a newcomer replaces.
    @Suite struct ConnectionLimitsTests {
        typealias Pending = (id: ConnectionLimits.ID, arrival: FirstFrameArrival)

        /// Enters `count` connections from `source`, oldest first, each with its own arrival mark.
        static func enter(_ count: Int, from source: String, into limits: ConnectionLimits) async -> [Pending] {
            var entered: [Pending] = []
            for _ in 0..<count {
                let arrival = FirstFrameArrival()
                guard
                    case .admitted(let id, let madeRoom) = await limits.enter(from: source, channel: EmbeddedChannel(), firstFrame: arrival)
                else {
                    Issue.record("a connection within the share was refused")
                    continue
                }
                #expect(!madeRoom)
                entered.append((id, arrival))
            }
            return entered
        }

        @Test func aNewcomerReplacesTheOldestSilentConnectionNotOneThatSpoke() async throws {
            let limits = ConnectionLimits(total: 100, unauthenticatedPerSource: 8)
            let pending = await Self.enter(8, from: "10.0.0.1", into: limits)
            // The oldest sent its whole first message; its task has not verified it yet.
            pending[0].arrival.mark()
            let entry = await limits.enter(from: "10.0.0.1", channel: EmbeddedChannel(), firstFrame: FirstFrameArrival())
            guard case .admitted(_, madeRoom: true) = entry else {
                Issue.record("the ninth was not admitted in a silent one's place: \(entry)")
                return
            }
            #expect(await !limits.wasEvicted(pending[0].id))
            #expect(await limits.wasEvicted(pending[1].id))
            // Another address keeps its own share.
            let other = await Self.enter(8, from: "10.0.0.2", into: limits)
            #expect(other.count == 8)
        }

        @Test func whenEveryPendingConnectionSpokeTheOldestUnverifiedIsReplaced() async throws {
            let limits = ConnectionLimits(total: 100, unauthenticatedPerSource: 8)
            let pending = await Self.enter(8, from: "10.0.0.1", into: limits)
            for (_, arrival) in pending { arrival.mark() }
            await limits.verified(pending[0].id)
            let entry = await limits.enter(from: "10.0.0.1", channel: EmbeddedChannel(), firstFrame: FirstFrameArrival())
            guard case .admitted(_, madeRoom: true) = entry else {
                Issue.record("the ninth was not admitted: \(entry)")
                return
            }
            #expect(await !limits.wasEvicted(pending[0].id))
            #expect(await limits.wasEvicted(pending[1].id))
        }

        @Test func whenEveryPendingConnectionVerifiedTheNewcomerIsRefused() async throws {
            let limits = ConnectionLimits(total: 100, unauthenticatedPerSource: 8)
            let pending = await Self.enter(8, from: "10.0.0.1", into: limits)
            for (id, _) in pending { await limits.verified(id) }
            let entry = await limits.enter(from: "10.0.0.1", channel: EmbeddedChannel(), firstFrame: FirstFrameArrival())
            #expect(entry == .refused(.addressCrowded))
            for (id, _) in pending { #expect(await !limits.wasEvicted(id)) }
        }

        @Test func theDecoderMarksTheFirstWholeFrameOnly() throws {
            let arrival = FirstFrameArrival()
            var decoder = FrameDecoder()
            decoder.firstFrame = arrival
            var buffer = ByteBuffer(bytes: [0, 0, 0, 3, 1, 2])
            #expect(try decoder.nextFrame(&buffer) == nil)
            #expect(!arrival.hasArrived, "a frame cut short is not a message")
            buffer.writeBytes([3])
            #expect(try decoder.nextFrame(&buffer) == ByteBuffer(bytes: [1, 2, 3]))
            #expect(arrival.hasArrived)
        }
    }
}
