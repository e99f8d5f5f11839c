import Foundation
import HyzerDomain
import Testing

@testable import HyzerWeb

/// Places gained or lost since the latest hole anyone played, ranked as the standings rank.
@Suite struct PositionMovementTests {
    @Test func tiesShareTheBetterPlaceAndUnscoredComeLast() {
        let (a, b, c, d, e) = (guest(1), guest(2), guest(3), guest(4), guest(5))
        let positions = PositionMovement.positions([(a, 1), (b, -2), (c, 1), (d, nil), (e, 3)])
        #expect(positions == [b: 1, a: 2, c: 2, e: 4, d: 5])
    }

    private func guest(_ number: UInt8) -> ParticipantID {
        ParticipantID(guest: UUID(uuid: (0, 0, 0, 0, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, 0, number)))
    }
}
