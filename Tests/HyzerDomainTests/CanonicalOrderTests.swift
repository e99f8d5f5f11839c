import Foundation
import HyzerTestSupport
import Testing

@testable import HyzerDomain

@Suite("Canonical order")
struct CanonicalOrderTests {
    private static func uuid(_ random: inout SplitMix64) -> UUID {
        let b = (0..<16).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        return UUID(
            uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])
        )
    }

    @Test("UUIDs by bytes sort exactly like their lowercase text by bytes")
    func uuidOrderMatchesText() {
        var random = SplitMix64(seed: 42)
        for _ in 0..<2_000 {
            let lhs = Self.uuid(&random)
            let rhs = Self.uuid(&random)
            let byText = CanonicalOrder.precedes(lhs.uuidString.lowercased(), rhs.uuidString.lowercased())
            #expect(CanonicalOrder.precedes(lhs, rhs) == byText, "\(lhs) vs \(rhs)")
        }
    }

    @Test(
        "strings compare by UTF-8 bytes",
        arguments: [("B", "a", true), ("a", "B", false), ("Z", "É", true), ("ab", "abc", true), ("x", "x", false)]
    )
    func stringOrder(lhs: String, rhs: String, precedes: Bool) {
        #expect(CanonicalOrder.precedes(lhs, rhs) == precedes)
    }
}
