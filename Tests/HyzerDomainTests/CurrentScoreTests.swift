import HyzerDomain
import Testing

/// docs/rules.md, "Current score of one (round, player, hole)".
@Suite("Current score")
struct CurrentScoreTests {
    typealias F = Fixture

    @Test("no event: the hole is not scored")
    func unscored() {
        let evaluation = F.evaluate([])
        #expect(evaluation.score(player: F.anna.id, hole: 1) == .unscored)
        #expect(evaluation.score(player: F.anna.id, hole: 1).strokes == nil)
        #expect(evaluation.score(player: F.guest(99), hole: 99) == .unscored)
    }

    @Test("two devices recording the same strokes merge silently")
    func silentMerge() {
        let fromAnna = F.event(1, F.anna, hole: 1, strokes: 3, device: F.annaPhone, at: 2_000)
        let fromBen = F.event(2, F.anna, hole: 1, strokes: 3, device: F.benPhone, at: 1_900)
        let score = F.evaluate([fromAnna, fromBen]).score(player: F.anna.id, hole: 1)
        #expect(score == .scored(strokes: 3, leaves: [fromBen, fromAnna]))
        #expect(score.strokes == 3)
        #expect(!score.isDisputed)
    }

    @Test("leaves that disagree dispute the hole; the earliest leaf is chosen, not the newest")
    func dispute() {
        let early = F.event(9, F.anna, hole: 1, strokes: 4, device: F.benPhone, at: 1_000)
        let late = F.event(1, F.anna, hole: 1, strokes: 3, device: F.annaPhone, at: 2_000)
        let score = F.evaluate([late, early]).score(player: F.anna.id, hole: 1)
        #expect(score == .disputed(leaves: [early, late], chosen: early))
        #expect(score.strokes == 4)
        #expect(score.isDisputed)
    }

    @Test("equal times: the smaller id is chosen")
    func disputeTieOnTime() {
        let second = F.event(2, F.anna, hole: 1, strokes: 3, device: F.annaPhone, at: 1_000, counter: 4)
        let first = F.event(1, F.anna, hole: 1, strokes: 5, device: F.benPhone, at: 1_000, counter: 4)
        let score = F.evaluate([second, first]).score(player: F.anna.id, hole: 1)
        #expect(score == .disputed(leaves: [first, second], chosen: first))
    }

    @Test("a correction from the same device supersedes the original")
    func correctionBySameDevice() {
        let original = F.event(1, F.anna, hole: 2, strokes: 5, device: F.annaPhone, at: 1_000)
        let correction = F.event(
            2, F.anna, hole: 2, strokes: 4, device: F.annaPhone, at: 1_500, supersedes: [original]
        )
        #expect(
            F.evaluate([correction, original]).score(player: F.anna.id, hole: 2)
                == .scored(strokes: 4, leaves: [correction]))
    }

    @Test("a correction of a correction leaves only the last")
    func correctionChain() {
        let original = F.event(1, F.anna, hole: 2, strokes: 5, device: F.annaPhone, at: 1_000)
        let first = F.event(2, F.anna, hole: 2, strokes: 4, device: F.annaPhone, at: 1_100, supersedes: [original])
        let second = F.event(3, F.anna, hole: 2, strokes: 2, device: F.annaPhone, at: 1_200, supersedes: [first])
        #expect(
            F.evaluate([second, original, first]).score(player: F.anna.id, hole: 2)
                == .scored(strokes: 2, leaves: [second]))
    }

    @Test("a device cannot supersede another device's score: both compete as leaves")
    func correctionByAnotherDeviceIgnored() {
        let annas = F.event(1, F.anna, hole: 1, strokes: 3, device: F.annaPhone, at: 1_000)
        let bens = F.event(2, F.anna, hole: 1, strokes: 6, device: F.benPhone, at: 1_100, supersedes: [annas])
        let score = F.evaluate([annas, bens]).score(player: F.anna.id, hole: 1)
        #expect(score == .disputed(leaves: [annas, bens], chosen: annas))
    }

    @Test("a supersession naming another hole or player is ignored")
    func supersessionAcrossHolesIgnored() {
        let hole1 = F.event(1, F.anna, hole: 1, strokes: 3, device: F.annaPhone, at: 1_000)
        let hole2 = F.event(2, F.anna, hole: 2, strokes: 4, device: F.annaPhone, at: 1_100, supersedes: [hole1])
        let bensHole1 = F.event(3, F.ben, hole: 1, strokes: 4, device: F.organizerPhone, at: 1_200, supersedes: [hole1])
        let evaluation = F.evaluate([hole1, hole2, bensHole1])
        #expect(evaluation.score(player: F.anna.id, hole: 1) == .scored(strokes: 3, leaves: [hole1]))
        #expect(evaluation.score(player: F.anna.id, hole: 2) == .scored(strokes: 4, leaves: [hole2]))
        #expect(evaluation.score(player: F.ben.id, hole: 1) == .scored(strokes: 4, leaves: [bensHole1]))
    }

    @Test("an event listing itself, or an unknown id, supersedes nothing")
    func selfAndUnknownSupersession() {
        let unknown = F.event(77, F.anna, hole: 1, strokes: 9, device: F.annaPhone, at: 500)
        let selfish = ScoreEvent(
            id: F.uuid(1), roundID: F.roundID, holeNumber: 1, playerID: F.anna.id, strokeCount: 3,
            supersedes: [F.uuid(1), unknown.id], reportedByPlayerID: nil, deviceID: F.annaPhone,
            createdAt: HLCTimestamp(physicalMilliseconds: 1_000)
        )
        #expect(F.evaluate([selfish]).score(player: F.anna.id, hole: 1) == .scored(strokes: 3, leaves: [selfish]))
    }

    @Test("forged events superseding each other leave no leaf, on every replica alike")
    func supersessionCycle() {
        let first = ScoreEvent(
            id: F.uuid(1), roundID: F.roundID, holeNumber: 1, playerID: F.anna.id, strokeCount: 3,
            supersedes: [F.uuid(2)], reportedByPlayerID: nil, deviceID: F.annaPhone,
            createdAt: HLCTimestamp(physicalMilliseconds: 1_000)
        )
        let second = ScoreEvent(
            id: F.uuid(2), roundID: F.roundID, holeNumber: 1, playerID: F.anna.id, strokeCount: 4,
            supersedes: [F.uuid(1)], reportedByPlayerID: nil, deviceID: F.annaPhone,
            createdAt: HLCTimestamp(physicalMilliseconds: 1_100)
        )
        #expect(F.evaluate([first, second]).score(player: F.anna.id, hole: 1) == .unscored)
        #expect(F.evaluate([second, first]).validEvents == [first, second])
    }

    @Test("superseding an ignored event has no effect, but the superseding event counts")
    func supersedingAnIgnoredEvent() {
        let invalid = F.event(1, F.anna, hole: 1, strokes: 11, device: F.annaPhone, at: 1_000)
        let fix = F.event(2, F.anna, hole: 1, strokes: 4, device: F.annaPhone, at: 1_100, supersedes: [invalid])
        let evaluation = F.evaluate([invalid, fix])
        #expect(evaluation.score(player: F.anna.id, hole: 1) == .scored(strokes: 4, leaves: [fix]))
        #expect(evaluation.ignoredEvents == [IgnoredEvent(event: invalid, reason: .strokesOutOfRange(strokes: 11))])
    }

    @Test("an organizer resolution superseding every leaf ends the dispute, whatever the clocks say")
    func resolutionEndsDispute() {
        // Anna's phone clock runs an hour fast: its event looks newest, yet the resolution wins.
        let annas = F.event(1, F.anna, hole: 1, strokes: 3, device: F.annaPhone, at: 3_600_000)
        let bens = F.event(2, F.anna, hole: 1, strokes: 4, device: F.benPhone, at: 1_000)
        let resolution = F.event(
            3, F.anna, hole: 1, strokes: 4, device: F.organizerWatch, at: 2_000, supersedes: [annas, bens]
        )
        let evaluation = F.evaluate([annas, resolution, bens])
        #expect(evaluation.score(player: F.anna.id, hole: 1) == .scored(strokes: 4, leaves: [resolution]))
        #expect(evaluation.discrepancies.isEmpty)
    }

    @Test("a resolution superseding only some leaves leaves the others competing")
    func partialResolution() {
        let annas = F.event(1, F.anna, hole: 1, strokes: 3, device: F.annaPhone, at: 1_000)
        let bens = F.event(2, F.anna, hole: 1, strokes: 4, device: F.benPhone, at: 1_100)
        let resolution = F.event(
            3, F.anna, hole: 1, strokes: 5, device: F.organizerPhone, at: 1_200, supersedes: [annas])
        let score = F.evaluate([annas, bens, resolution]).score(player: F.anna.id, hole: 1)
        #expect(score == .disputed(leaves: [bens, resolution], chosen: bens))
    }

    @Test("two organizer devices resolving to the same strokes agree: no dispute")
    func concurrentResolutionsAgree() {
        let annas = F.event(1, F.anna, hole: 1, strokes: 3, device: F.annaPhone, at: 1_000)
        let bens = F.event(2, F.anna, hole: 1, strokes: 4, device: F.benPhone, at: 1_100)
        let fromPhone = F.event(
            3, F.anna, hole: 1, strokes: 4, device: F.organizerPhone, at: 1_300, supersedes: [annas, bens])
        let fromWatch = F.event(
            4, F.anna, hole: 1, strokes: 4, device: F.organizerWatch, at: 1_200, supersedes: [annas, bens])
        let score = F.evaluate([fromPhone, annas, fromWatch, bens]).score(player: F.anna.id, hole: 1)
        #expect(score == .scored(strokes: 4, leaves: [fromWatch, fromPhone]))
    }

    @Test("two organizer devices resolving differently keep the hole disputed")
    func concurrentResolutionsDisagree() {
        let annas = F.event(1, F.anna, hole: 1, strokes: 3, device: F.annaPhone, at: 1_000)
        let bens = F.event(2, F.anna, hole: 1, strokes: 4, device: F.benPhone, at: 1_100)
        let fromPhone = F.event(
            3, F.anna, hole: 1, strokes: 4, device: F.organizerPhone, at: 1_300, supersedes: [annas, bens])
        let fromWatch = F.event(
            4, F.anna, hole: 1, strokes: 3, device: F.organizerWatch, at: 1_200, supersedes: [annas, bens])
        let evaluation = F.evaluate([fromPhone, annas, fromWatch, bens])
        #expect(
            evaluation.score(player: F.anna.id, hole: 1)
                == .disputed(leaves: [fromWatch, fromPhone], chosen: fromWatch)
        )
        #expect(evaluation.discrepancies.map(\.hole) == [1])
        // A later resolution of both resolutions ends it.
        let final = F.event(
            5, F.anna, hole: 1, strokes: 4, device: F.organizerPhone, at: 1_400, supersedes: [fromPhone, fromWatch])
        let resolved = F.evaluate([fromPhone, annas, fromWatch, bens, final])
        #expect(resolved.score(player: F.anna.id, hole: 1) == .scored(strokes: 4, leaves: [final]))
    }

    @Test("a device of a non-organizer cannot resolve; nor can an unknown device")
    func resolutionFromNonOrganizer() {
        let annas = F.event(1, F.anna, hole: 1, strokes: 3, device: F.annaPhone, at: 1_000)
        let bens = F.event(2, F.anna, hole: 1, strokes: 4, device: F.benPhone, at: 1_100)
        let fake = F.event(
            3, F.anna, hole: 1, strokes: 4, device: F.strangerPhone, at: 1_200, supersedes: [annas, bens])
        let score = F.evaluate([annas, bens, fake]).score(player: F.anna.id, hole: 1)
        #expect(score == .disputed(leaves: [annas, bens, fake], chosen: annas))
    }

    @Test("guests are scored like registered players")
    func guestScore() {
        let gus = F.event(1, F.gus, hole: 3, strokes: 5, device: F.benPhone, at: 1_000)
        #expect(F.evaluate([gus]).score(player: F.gus.id, hole: 3) == .scored(strokes: 5, leaves: [gus]))
    }
}
