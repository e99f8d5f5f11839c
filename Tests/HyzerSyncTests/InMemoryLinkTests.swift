import HyzerSync
import Testing

/// The in-memory link keeps the `ByteLink` contract: order, backpressure, close and cancellation.
@Suite struct InMemoryLinkTests {
    @Test func framesArriveInOrderBothWays() async throws {
        let (a, b) = InMemoryLink.pair()
        try await a.send([1])
        try await a.send([2, 2])
        try await b.send([3])
        #expect(try await b.receive() == [1])
        #expect(try await b.receive() == [2, 2])
        #expect(try await a.receive() == [3])
    }

    @Test func aSenderWaitsForRoomAndGoesOnWhenAFrameIsTaken() async throws {
        let (a, b) = InMemoryLink.pair(capacity: 2)
        try await a.send([1])
        try await a.send([2])
        let third = Task { try await a.send([3]) }
        // The third frame waits: only two fit. Taking one lets it in, in order.
        try await Task.sleep(for: .milliseconds(50))
        #expect(try await b.receive() == [1])
        try await third.value
        #expect(try await b.receive() == [2])
        #expect(try await b.receive() == [3])
    }

    @Test func aCloseDeliversWhatWasSentThenEndsAndRefusesMore() async throws {
        let (a, b) = InMemoryLink.pair()
        try await a.send([1])
        await a.close()
        #expect(try await b.receive() == [1])
        #expect(try await b.receive() == nil)
        await #expect(throws: InMemoryLinkError.closed) { try await b.send([2]) }
        await #expect(throws: InMemoryLinkError.closed) { try await a.send([2]) }
        await a.close()  // twice: nothing happens
    }

    @Test func aCloseEndsAWaitingReceiveAndAWaitingSend() async throws {
        let (a, b) = InMemoryLink.pair(capacity: 1)
        let receiving = Task { try await a.receive() }
        try await a.send([1])
        let sending = Task { try await a.send([2]) }
        try await Task.sleep(for: .milliseconds(50))
        await a.close()
        #expect(try await receiving.value == nil)
        await #expect(throws: InMemoryLinkError.closed) { try await sending.value }
        #expect(try await b.receive() == [1])
        #expect(try await b.receive() == nil)
    }

    @Test func cancellingAWaitingCallEndsIt() async throws {
        let (a, _) = InMemoryLink.pair(capacity: 1)
        let receiving = Task { try await a.receive() }
        try await a.send([1])
        let sending = Task { try await a.send([2]) }
        try await Task.sleep(for: .milliseconds(50))
        receiving.cancel()
        sending.cancel()
        await #expect(throws: CancellationError.self) { try await receiving.value }
        await #expect(throws: CancellationError.self) { try await sending.value }
    }

    @Test func aSecondReceiverIsRefusedNotTrapped() async throws {
        let (a, _) = InMemoryLink.pair()
        let first = Task { try await a.receive() }
        try await Task.sleep(for: .milliseconds(50))
        await #expect(throws: InMemoryLinkError.receiveInProgress) { try await a.receive() }
        await a.close()
        #expect(try await first.value == nil)
    }
}
