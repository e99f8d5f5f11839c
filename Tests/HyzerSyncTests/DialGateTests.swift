import Synchronization
import Testing

@testable import HyzerSync

/// `DialGate` (docs/discovery.md, "Bounds"), driven directly: never more places taken than it
/// has, waiters admitted in order as places are given back, a cancelled waiter holding nothing,
/// and a dial's place given back once however often it leaves.
@Suite struct DialGateTests {
    final class Admitted: Sendable {
        let order = Mutex<[Int]>([])
    }

    @Test func fourPlacesAdmitFourAndTheRestInOrderAsPlacesComeBack() async {
        let gate = DialGate(places: 4)
        for _ in 0..<4 { #expect(await gate.enter()) }
        let admitted = Admitted()
        var waiting: [Task<Void, Never>] = []
        for index in 0..<3 {
            waiting.append(
                Task {
                    if await gate.enter() { admitted.order.withLock { $0.append(index) } }
                })
            // Each waiter queues before the next starts.
            while gate.waiting < index + 1 { await Task.yield() }
        }
        #expect(admitted.order.withLock { $0 }.isEmpty, "a fifth dial waits while four are under way")
        gate.leave()
        await waiting[0].value
        #expect(admitted.order.withLock { $0 } == [0])
        gate.leave()
        gate.leave()
        for task in waiting { await task.value }
        #expect(admitted.order.withLock { $0 } == [0, 1, 2], "waiters are admitted in the order they came")
        #expect(gate.free == 0)
    }

    @Test func aCancelledWaiterHoldsNoPlace() async {
        let gate = DialGate(places: 1)
        #expect(await gate.enter())
        let waiter = Task { await gate.enter() }
        while gate.waiting < 1 { await Task.yield() }
        waiter.cancel()
        #expect(await waiter.value == false)
        gate.leave()
        #expect(gate.free == 1, "the place came back to the gate, not to the cancelled waiter")
    }

    @Test func aPlaceIsGivenBackOnce() async {
        let gate = DialGate(places: 2)
        #expect(await gate.enter())
        let place = DialGate.Place(gate)
        place.leave()
        place.leave()
        #expect(gate.free == 2)
    }
}
