import HyzerDomain
import HyzerKit
import Testing

/// `VersionVector.formEvidenceNeeds` (docs/store.md, "The proof travels"): what folder sync adds
/// to a sequence-number delta so that members lacking a fork's proof or another branch get it,
/// the same whatever order the members' vectors come in (the simulator found an order-dependent
/// rule: one member knowing more hid what another lacked, and two runs of one seed differed).
@Suite struct EvidenceNeedsTests {
    let author = AuthorID(bytes: [UInt8](repeating: 1, count: 32))!
    let other = AuthorID(bytes: [UInt8](repeating: 2, count: 32))!

    func vector(_ entry: VersionVector.Entry) -> VersionVector {
        VersionVector(entries: [author: entry, other: VersionVector.Entry(sequence: 3)])
    }

    func needs(_ members: [VersionVector], local: VersionVector, from: VersionVector) -> VersionVector {
        var result = from
        result.formEvidenceNeeds(of: members, local: local)
        return result
    }

    @Test func aMemberThatLacksTheForkGetsTheWholeLogWhateverTheOrder() {
        let local = vector(.init(sequence: 9, hashPrefix: [1], frozenAt: 5))
        let from = VersionVector([author: 7, other: 3])
        let live = vector(.init(sequence: 7, hashPrefix: [2]))
        let knowsMore = vector(.init(sequence: 9, hashPrefix: [1], frozenAt: 4))
        let frozenHigher = vector(.init(sequence: 9, hashPrefix: [1], frozenAt: 6))
        for members in [[live, knowsMore], [knowsMore, live], [knowsMore, frozenHigher], [frozenHigher, knowsMore]] {
            let result = needs(members, local: local, from: from)
            #expect(result.entry(author) == nil, "\(members)")
            #expect(result[other] == 3)
        }
        // Only members that know as much or more: the delta stays as it was.
        #expect(needs([knowsMore, vector(.init(sequence: 9, hashPrefix: [1], frozenAt: 5))], local: local, from: from) == from)
    }

    @Test func anotherBranchAtTheSameSequenceGetsTheWholeLog() {
        let local = vector(.init(sequence: 7, hashPrefix: [1]))
        let from = VersionVector([author: 7, other: 3])
        let branch = vector(.init(sequence: 7, hashPrefix: [2]))
        let frozen = vector(.init(sequence: 7, hashPrefix: [1], frozenAt: 6))
        for members in [[branch, frozen], [frozen, branch]] {
            #expect(needs(members, local: local, from: from).entry(author) == nil)
        }
        // A member frozen where this replica is live knows more: it sends the proof itself, and
        // what a lagging member lacks is still written.
        let lagging = vector(.init(sequence: 4))
        let lacking = VersionVector([author: 4, other: 3])
        #expect(needs([frozen, lagging], local: local, from: lacking) == lacking)
        #expect(needs([lagging, frozen], local: local, from: lacking) == lacking)
        // The same branch, or a shorter one whose hash this replica cannot compare: nothing added.
        #expect(needs([vector(.init(sequence: 7, hashPrefix: [1])), lagging], local: local, from: lacking) == lacking)
    }
}
