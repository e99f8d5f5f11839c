import Testing

@testable import HyzerWeb

/// Places gained or lost since the latest hole anyone played, ranked as the standings rank.
@Suite struct PositionMovementTests {
    @Test func tiesShareTheBetterPlaceAndUnscoredComeLast() {
        let positions = PositionMovement.positions([("a", 1), ("b", -2), ("c", 1), ("d", nil), ("e", 3)])
        #expect(positions == ["b": 1, "a": 2, "c": 2, "e": 4, "d": 5])
    }
}
