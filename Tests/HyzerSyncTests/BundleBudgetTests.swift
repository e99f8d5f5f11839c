import Foundation
import Synchronization
import Testing

@testable import HyzerSync

/// The memory every connection's partial bundles share (docs/sync-protocol.md, "Bounds and
/// failure"), taken directly.
@Suite struct BundleBudgetTests {
    /// A share that does not fit is given back in the step that refuses it.
    @Test func aRefusedShareIsGivenBackAtOnce() {
        let budget = BundleBudget(bytesMax: 4)
        let (first, second) = (BundleBudget.Reservation(budget), BundleBudget.Reservation(budget))
        #expect(first.grow(by: 2) && second.grow(by: 2))
        #expect(!first.grow(by: 1))
        #expect(first.bytes == 0 && budget.bytesUsed == 2)
        #expect(second.grow(by: 1), "the refused share's room is free for the other")
    }

    /// Two connections on two threads fill a shared budget at once, each wanting three of its
    /// four units: exactly one is refused, every time. Were a refused share given back only
    /// after the refusal, both could find the budget full together and both be refused.
    @Test func ofTwoThatReachTheBoundTogetherOnlyOneIsRefused() {
        let budget = BundleBudget(bytesMax: 4 << 8)
        for _ in 0..<1_000 {
            nonisolated(unsafe) let shares = [BundleBudget.Reservation(budget), BundleBudget.Reservation(budget)]
            let refused = Atomic<Int>(0)
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                for _ in 0..<(3 << 8) {
                    guard shares[index].grow(by: 1) else {
                        refused.add(1, ordering: .relaxed)
                        break
                    }
                }
            }
            #expect(refused.load(ordering: .relaxed) == 1)
            #expect(budget.bytesUsed == shares.map(\.bytes).reduce(0, +))
            for share in shares { share.shrink(by: share.bytes) }
        }
    }
}
