import HyzerDomain
import Testing

/// docs/domain.md, "Quick card entry": how a typed card is read.
@Suite("Quick card")
struct QuickCardTests {
    @Test func namesNumbersWordsAndGolfTerms() throws {
        let card = try QuickCard(
            parsing: "Mike 3, jake  FOUR; Sarah Lee birdie\nZoë double bogey, Sam ace, Ann par, Bo eagle, Cy bogey, Di ten")
        #expect(card.entries.map(\.name) == ["Mike", "jake", "Sarah Lee", "Zoë", "Sam", "Ann", "Bo", "Cy", "Di"])
        #expect(
            card.entries.map(\.score) == [
                .strokes(3), .strokes(4), .relativeToPar(-1), .relativeToPar(2), .strokes(1), .relativeToPar(0), .relativeToPar(-2),
                .relativeToPar(1), .strokes(10),
            ])
        #expect(card.entries.map { $0.score.strokes(par: 4) } == [3, 4, 3, 6, 1, 4, 2, 5, 10])
        #expect(card.entries[1].text == "jake FOUR")
    }

    @Test(arguments: [
        ("", "the card is empty; write each entry as NAME SCORE, like \"Mike 3, Jake four, Sarah birdie\""),
        (" , ;", "the card is empty; write each entry as NAME SCORE, like \"Mike 3, Jake four, Sarah birdie\""),
        ("Mike", "'Mike' has no score; write each entry as NAME SCORE, like \"Mike 3, Jake four, Sarah birdie\""),
        ("3", "'3' names nobody; write each entry as NAME SCORE, like \"Mike 3, Jake four, Sarah birdie\""),
        ("double bogey", "'double bogey' names nobody; write each entry as NAME SCORE, like \"Mike 3, Jake four, Sarah birdie\""),
        (
            "Mike 3, Jake tree",
            "'tree' in 'Jake tree' is not a score; use strokes (3 or three) or ace, eagle, birdie, par, bogey, double bogey"
        ),
        ("Mike +1", "'+1' in 'Mike +1' is not a score; use strokes (3 or three) or ace, eagle, birdie, par, bogey, double bogey"),
        ("Mike 100", "'100' in 'Mike 100' is not a score; use strokes (3 or three) or ace, eagle, birdie, par, bogey, double bogey"),
    ])
    func unreadableCardsAreRefusedWhole(text: String, message: String) {
        #expect(performing: { try QuickCard(parsing: text) }, throws: { ($0 as? QuickCard.ParseError)?.description == message })
    }

    @Test func sizeIsBoundedBeforeReading() {
        #expect(throws: QuickCard.ParseError.self) { try QuickCard(parsing: String(repeating: "Mike 3, ", count: 600)) }
        #expect(throws: QuickCard.ParseError.self) { try QuickCard(parsing: (1...65).map { "P\($0) 3" }.joined(separator: ",")) }
    }
}
