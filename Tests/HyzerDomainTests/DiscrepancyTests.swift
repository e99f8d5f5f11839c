import Foundation
import HyzerDomain
import Testing

/// docs/rules.md, "Discrepancies".
@Suite("Discrepancies")
struct DiscrepancyTests {
    typealias F = Fixture

    @Test("one per disputed (player, hole), by participant order in the round then hole")
    func order() {
        let events = [
            F.event(1, F.ben, hole: 1, strokes: 3, device: F.benPhone, at: 1_000),
            F.event(2, F.ben, hole: 1, strokes: 4, device: F.annaPhone, at: 1_000),
            F.event(3, F.anna, hole: 3, strokes: 3, device: F.annaPhone, at: 1_000),
            F.event(4, F.anna, hole: 3, strokes: 4, device: F.benPhone, at: 1_000),
            F.event(5, F.anna, hole: 2, strokes: 3, device: F.annaPhone, at: 1_000),
            F.event(6, F.anna, hole: 2, strokes: 5, device: F.benPhone, at: 1_000),
            F.event(7, F.olive, hole: 1, strokes: 3, device: F.annaPhone, at: 1_000),
            F.event(8, F.olive, hole: 1, strokes: 3, device: F.benPhone, at: 1_000),
        ]
        let discrepancies = F.evaluate(events).discrepancies
        // The round lists Olive, Anna, Ben, Gus; Olive's agreeing leaves are no discrepancy.
        #expect(discrepancies.map { "\($0.name) \($0.hole)" } == ["Anna 2", "Anna 3", "Ben 1"])
    }

    @Test("every leaf is listed with strokes, reporter, device and time, in (createdAt, id) order")
    func leaves() throws {
        let fromBen = F.event(
            2, F.anna, hole: 1, strokes: 4, device: F.benPhone, at: 1_700_000_000_123, counter: 2, reportedBy: F.ben)
        let fromAnna = F.event(1, F.anna, hole: 1, strokes: 3, device: F.annaPhone, at: 1_700_000_000_200)
        let discrepancy = try #require(F.evaluate([fromAnna, fromBen]).discrepancies.first)
        #expect(
            discrepancy
                == Discrepancy(
                    playerID: F.anna.id, name: "Anna", hole: 1,
                    leaves: [
                        DiscrepancyLeaf(
                            eventID: ScoreEventID(F.uuid(2)), strokes: 4, reportedByPlayerID: F.ben.id,
                            deviceID: F.benPhone, createdAt: "1700000000123.2"
                        ),
                        DiscrepancyLeaf(
                            eventID: ScoreEventID(F.uuid(1)), strokes: 3, reportedByPlayerID: nil,
                            deviceID: F.annaPhone, createdAt: "1700000000200.0"
                        ),
                    ]
                ))
    }

    @Test("a correction by the reporting device ends its own side of a dispute")
    func correctionEndsDispute() {
        let annas = F.event(1, F.anna, hole: 1, strokes: 3, device: F.annaPhone, at: 1_000)
        let bens = F.event(2, F.anna, hole: 1, strokes: 4, device: F.benPhone, at: 1_100)
        let bensFix = F.event(3, F.anna, hole: 1, strokes: 3, device: F.benPhone, at: 1_200, supersedes: [bens])
        #expect(F.evaluate([annas, bens]).discrepancies.count == 1)
        #expect(F.evaluate([annas, bens, bensFix]).discrepancies.isEmpty)
    }

    @Test("JSON writes a missing reporter as null")
    func json() throws {
        let leaf = DiscrepancyLeaf(
            eventID: ScoreEventID(F.uuid(1)), strokes: 3, reportedByPlayerID: nil, deviceID: F.annaPhone, createdAt: "5.0")
        let json = try F.encodedJSON(Discrepancy(playerID: F.anna.id, name: "N", hole: 2, leaves: [leaf]))
        #expect(
            json == #"{"hole":2,"leaves":[{"createdAt":"5.0","deviceID":"\#(F.annaPhone.hex)","eventID":"\#(F.uuid(1).lowercased)","#
                + #""reportedByPlayerID":null,"#
                + #""strokes":3}],"name":"N","playerID":"\#(F.anna.id)"}"#
        )
        #expect(try JSONDecoder().decode(Discrepancy.self, from: Data(json.utf8)).leaves == [leaf])
    }
}
