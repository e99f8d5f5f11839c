import Foundation
import HyzerDomain
import HyzerKit
import Testing

/// docs/rules.md, "Bad input": every command validates before it writes. Each bad input gets the
/// right `ReplicaError`, and the store is unchanged: same digest, same op count, same views.
@Suite struct CommandValidationTests {
    /// Two synced phones. Ava's phone organizes `round` (Morley Field: Ava, Ben, guest Gus) and
    /// has finished `completed`; both phones have scored. Built once; every case gets a copy.
    final class Template: Sendable {
        let avaStore: StoreTemplate
        let benStore: StoreTemplate
        let round: Round
        let completed: Round
        /// Ava's phone: Ava, hole 1, 3 strokes.
        let avaEvent: ScoreEvent
        /// Ava's phone: Gus, hole 1, 5 strokes, then corrected to 4 by `avaCorrection`.
        let avaSuperseded: ScoreEvent
        let avaCorrection: ScoreEvent
        /// Ben's phone: Ben, hole 1, 4 strokes.
        let benEvent: ScoreEvent
        /// A round-id prefix that two rounds share.
        let sharedRoundPrefix: String
        private let originals: [TestReplica]

        static let shared = Result { try Template() }

        private init() throws {
            let ava = try TestReplica("ava-phone", owner: "Ava", keySeed: 31)
            let ben = try TestReplica("ben-phone", owner: "Ben", keySeed: 32, start: baseTime + 5_000)
            try ava.replica.addPlayer(name: "Cal")
            try ava.replica.addPlayer(name: "Sam")
            try ava.replica.addPlayer(name: "Sam")
            try ava.replica.addCourse(name: "Twin", pars: [3, 3, 3])
            try ava.replica.addCourse(name: "Twin", pars: [4, 4, 4])
            try ava.replica.addCourse(name: "Short", pars: [3, 3, 3])
            try ava.replica.addCourse(name: "Gone", pars: [3])
            try ava.replica.deleteCourse("Gone")
            try syncAll([ava, ben])

            round = try ava.replica.startRound(course: "Morley Field", players: ["Ava", "Ben"], guests: ["Gus"])
            let id = round.id.lowercased
            avaEvent = try ava.replica.recordScore(round: id, player: "Ava", hole: 1, strokes: 3)
            avaSuperseded = try ava.replica.recordScore(round: id, player: "Gus", hole: 1, strokes: 5)
            avaCorrection = try ava.replica.correct(event: avaSuperseded.id.lowercased, strokes: 4)
            completed = try ava.replica.startRound(course: "Maple Hill", players: ["Ava"])
            try ava.replica.finishRound(completed.id.lowercased, force: true)

            // More rounds until two ids share a first digit, for an ambiguous prefix.
            var prefix: String?
            while prefix == nil {
                try ava.replica.startRound(course: "DeLaveaga", players: ["Cal"])
                let firsts = try ava.replica.rounds().map { String($0.round.id.lowercased.prefix(1)) }
                prefix = firsts.first { first in firsts.filter { $0 == first }.count > 1 }
            }
            sharedRoundPrefix = prefix!
            try syncAll([ava, ben])
            benEvent = try ben.replica.recordScore(round: id, player: "Ben", hole: 1, strokes: 4)
            try syncAll([ava, ben])

            originals = [ava, ben]
            avaStore = try StoreTemplate(closing: ava, start: baseTime + 100_000)
            benStore = try StoreTemplate(closing: ben, start: baseTime + 105_000)
        }
    }

    /// A fresh copy of both phones of the template.
    final class Fixture: Sendable {
        let template: Template
        let ava: TestReplica
        let ben: TestReplica

        init() throws {
            template = try Template.shared.get()
            ava = try template.avaStore.copy()
            ben = try template.benStore.copy()
        }

        var round: Round { template.round }
        var completed: Round { template.completed }
        var avaEvent: ScoreEvent { template.avaEvent }
        var avaSuperseded: ScoreEvent { template.avaSuperseded }
        var benEvent: ScoreEvent { template.benEvent }
        var sharedRoundPrefix: String { template.sharedRoundPrefix }
        var roundID: String { round.id.lowercased }
    }

    /// One bad input: what runs, on which phone, and the error it must get.
    struct BadInput: Sendable, CustomTestStringConvertible {
        let label: String
        let onBensPhone: Bool
        let command: @Sendable (Fixture, Replica) throws -> Void
        let expected: @Sendable (Fixture) throws -> any Error & Equatable

        init(
            _ label: String, onBensPhone: Bool = false, _ command: @escaping @Sendable (Fixture, Replica) throws -> Void,
            expect expected: @escaping @Sendable (Fixture) throws -> ReplicaError
        ) {
            self.init(label, onBensPhone: onBensPhone, command, expecting: expected)
        }

        /// A refusal whose error is of another type than `ReplicaError`.
        init<Refusal: Error & Equatable>(
            _ label: String, onBensPhone: Bool = false, _ command: @escaping @Sendable (Fixture, Replica) throws -> Void,
            expecting expected: @escaping @Sendable (Fixture) throws -> Refusal
        ) {
            self.label = label
            self.onBensPhone = onBensPhone
            self.command = command
            self.expected = expected
        }

        var testDescription: String { label }
    }

    static let badInputs: [BadInput] = [
        // Unknown and ambiguous names.
        BadInput(
            "unknown player", { _, r in try r.startRound(course: "Morley Field", players: ["Zed"]) },
            expect: { _ in .unknown(kind: "player", text: "Zed") }),
        BadInput(
            "ambiguous player", { _, r in try r.startRound(course: "Morley Field", players: ["Sam"]) },
            expect: { f in
                .ambiguous(
                    kind: "player", text: "Sam",
                    matches: try f.ava.replica.players().filter { $0.displayName == "Sam" }.map { String($0.id.lowercased.prefix(8)) })
            }),
        BadInput(
            "unknown organizer", { _, r in try r.startRound(course: "Morley Field", players: ["Ava"], organizer: "Zed") },
            expect: { _ in .unknown(kind: "player", text: "Zed") }),
        BadInput(
            "unknown course", { _, r in try r.startRound(course: "Nowhere", players: ["Ava"]) },
            expect: { _ in .unknown(kind: "course", text: "Nowhere") }),
        BadInput(
            "ambiguous course", { _, r in try r.setPar(course: "Twin", hole: 1, par: 4) },
            expect: { f in
                .ambiguous(
                    kind: "course", text: "Twin",
                    matches: try f.ava.replica.courses().filter { $0.name == "Twin" }.map { String($0.id.lowercased.prefix(8)) })
            }),
        BadInput(
            "deleted course", { _, r in try r.startRound(course: "Gone", players: ["Ava"]) },
            expect: { _ in .courseDeleted(name: "Gone") }),
        BadInput(
            "renaming a deleted course", { _, r in try r.renameCourse("Gone", to: "Back") },
            expect: { _ in .courseDeleted(name: "Gone") }),
        BadInput(
            "unknown round", { _, r in try r.recordScore(round: "zzz", player: "Ava", hole: 1, strokes: 3) },
            expect: { _ in .unknown(kind: "round", text: "zzz") }),
        BadInput(
            "ambiguous round prefix", { f, r in try r.recordScore(round: f.sharedRoundPrefix, player: "Ava", hole: 1, strokes: 3) },
            expect: { f in
                .ambiguous(
                    kind: "round", text: f.sharedRoundPrefix,
                    matches: try f.ava.replica.rounds().map(\.round.id.lowercased)
                        .filter { $0.hasPrefix(f.sharedRoundPrefix) }.map { " (\($0.prefix(8)))" })
            }),
        BadInput(
            "unknown participant", { f, r in try r.recordScore(round: f.roundID, player: "Zed", hole: 1, strokes: 3) },
            expect: { _ in .unknown(kind: "participant", text: "Zed") }),
        BadInput(
            "unknown event", { _, r in try r.correct(event: "zzz", strokes: 3) },
            expect: { _ in .unknown(kind: "event", text: "zzz") }),
        BadInput(
            "unknown device", { _, r in try r.linkDevice("zzz", owner: "Ava") },
            expect: { _ in .unknown(kind: "device", text: "zzz") }),

        // Values out of range.
        BadInput(
            "hole 0", { f, r in try r.recordScore(round: f.roundID, player: "Ava", hole: 0, strokes: 3) },
            expect: { _ in .holeOutOfRange(hole: 0, holeCount: 18) }),
        BadInput(
            "hole 19 of 18", { f, r in try r.recordScore(round: f.roundID, player: "Ava", hole: 19, strokes: 3) },
            expect: { _ in .holeOutOfRange(hole: 19, holeCount: 18) }),
        BadInput(
            "resolving hole 19 of 18", { f, r in try r.resolve(round: f.roundID, player: "Ben", hole: 19, strokes: 3) },
            expect: { _ in .holeOutOfRange(hole: 19, holeCount: 18) }),
        BadInput(
            "par on a deleted course", { _, r in try r.setPar(course: "Gone", hole: 1, par: 3) },
            expect: { _ in .courseDeleted(name: "Gone") }),
        BadInput(
            "par of hole 4 of 3", { _, r in try r.setPar(course: "Short", hole: 4, par: 3) },
            expect: { _ in .holeOutOfRange(hole: 4, holeCount: 3) }),
        BadInput(
            "par of hole 19", { _, r in try r.setPar(course: "Morley Field", hole: 19, par: 3) },
            expect: { _ in .holeOutOfRange(hole: 19, holeCount: 18) }),
        BadInput(
            "strokes 0", { f, r in try r.recordScore(round: f.roundID, player: "Ava", hole: 2, strokes: 0) },
            expect: { _ in .strokesOutOfRange(0) }),
        BadInput(
            "strokes 11", { f, r in try r.recordScore(round: f.roundID, player: "Ava", hole: 2, strokes: 11) },
            expect: { _ in .strokesOutOfRange(11) }),
        BadInput(
            "correcting to 11 strokes", { f, r in try r.correct(event: f.avaEvent.id.lowercased, strokes: 11) },
            expect: { _ in .strokesOutOfRange(11) }),
        BadInput(
            "resolving to 0 strokes", { f, r in try r.resolve(round: f.roundID, player: "Ben", hole: 1, strokes: 0) },
            expect: { _ in .strokesOutOfRange(0) }),

        // Whose device may do what.
        BadInput(
            "correcting another device's event", { f, r in try r.correct(event: f.benEvent.id.lowercased, strokes: 5) },
            expect: { f in .notYourEvent(event: f.benEvent.id.lowercased, device: f.ben.author.short) }),
        BadInput(
            "correcting an already corrected event", { f, r in try r.correct(event: f.avaSuperseded.id.lowercased, strokes: 6) },
            expecting: { f in CorrectionError.alreadyCorrected(event: f.avaSuperseded.id.lowercased) }),
        BadInput(
            "resolving from a non-organizer device", onBensPhone: true,
            { f, r in try r.resolve(round: f.roundID, player: "Ben", hole: 1, strokes: 4) },
            expect: { f in .notOrganizerDevice(round: f.roundID, organizer: "Ava") }),
        BadInput(
            "finishing from a non-organizer device", onBensPhone: true,
            { f, r in try r.finishRound(f.roundID, force: true) },
            expect: { f in .notOrganizerDevice(round: f.roundID, organizer: "Ava") }),
        BadInput(
            "linking a device to a player this device does not own", onBensPhone: true,
            { f, r in try r.linkDevice(f.ben.author.hex, owner: "Ava") },
            expect: { _ in .notOwner(player: "Ava") }),

        // Completed rounds and unready finishes.
        BadInput(
            "finishing with missing scores", { f, r in try r.finishRound(f.roundID, force: false) },
            expect: { f in .roundNotReady(round: f.roundID, missingScores: 3 * 18 - 3, disputedHoles: 0) }),
        BadInput(
            "scoring a completed round",
            { f, r in try r.recordScore(round: f.completed.id.lowercased, player: "Ava", hole: 1, strokes: 3) },
            expect: { f in .roundCompleted(round: f.completed.id.lowercased) }),
        BadInput(
            "finishing a completed round", { f, r in try r.finishRound(f.completed.id.lowercased, force: true) },
            expect: { f in .roundCompleted(round: f.completed.id.lowercased) }),
        BadInput(
            "resolving an unscored hole of a completed round",
            { f, r in try r.resolve(round: f.completed.id.lowercased, player: "Ava", hole: 1, strokes: 3) },
            expect: { f in .roundCompleted(round: f.completed.id.lowercased) }),

        // Names and shapes.
        BadInput(
            "empty player name", { _, r in try r.addPlayer(name: "") },
            expecting: { _ in InputError.emptyName(kind: "player") }),
        BadInput(
            "player name with spaces around it", { _, r in try r.addPlayer(name: " Ava") },
            expecting: { _ in InputError.nameHasSurroundingSpaces(kind: "player") }),
        BadInput(
            "player name over 200 bytes", { _, r in try r.addPlayer(name: String(repeating: "é", count: 101)) },
            expecting: { _ in InputError.nameTooLong(kind: "player", limit: 200) }),
        BadInput(
            "course with no holes", { _, r in try r.addCourse(name: "Empty", pars: []) },
            expecting: { _ in InputError.parCountOutOfRange(count: 0, limit: 36) }),
        BadInput(
            "course with 37 holes", { _, r in try r.addCourse(name: "Long", pars: Array(repeating: 3, count: 37)) },
            expecting: { _ in InputError.parCountOutOfRange(count: 37, limit: 36) }),
        BadInput(
            "par 8", { _, r in try r.setPar(course: "Morley Field", hole: 1, par: 8) },
            expecting: { _ in InputError.parOutOfRange(par: 8, range: 2...7) }),
        BadInput(
            "a player listed twice", { _, r in try r.startRound(course: "Morley Field", players: ["Ava", "Ava"]) },
            expecting: { _ in RoundError.playerListedTwice("Ava") }),
        BadInput(
            "a round with nobody", { _, r in try r.startRound(course: "Morley Field", players: []) },
            expecting: { _ in RoundError.noParticipants }),
    ]

    /// Whether `thrown` is `expected` (of the same type, and equal).
    static func matches<Refusal: Error & Equatable>(_ expected: Refusal, _ thrown: any Error) -> Bool {
        (thrown as? Refusal) == expected
    }

    @Test(arguments: badInputs)
    func aBadInputIsRefusedAndChangesNothing(_ input: BadInput) throws {
        let fixture = try Fixture()
        let replica = input.onBensPhone ? fixture.ben.replica : fixture.ava.replica
        let expected = try input.expected(fixture)
        let before = try Fingerprint(replica)

        let thrown = #expect(throws: (any Error).self) { try input.command(fixture, replica) }
        #expect(thrown.map { Self.matches(expected, $0) } == true, "\(String(describing: thrown)) is not \(expected)")

        let after = try Fingerprint(replica)
        #expect(after.digest == before.digest)
        #expect(after.opCount == before.opCount)
        #expect(after.views == before.views)
    }

    @Test func finishingWithADisputedHoleIsNotReady() throws {
        let fixture = try Fixture()
        // Ava's phone disagrees with Ben's phone on Ben's hole 1: 5 against 4.
        try fixture.ava.replica.recordScore(round: fixture.roundID, player: "Ben", hole: 1, strokes: 5)
        let before = try Fingerprint(fixture.ava.replica)
        #expect(throws: ReplicaError.roundNotReady(round: fixture.roundID, missingScores: 3 * 18 - 3, disputedHoles: 1)) {
            try fixture.ava.replica.finishRound(fixture.roundID, force: false)
        }
        #expect(try Fingerprint(fixture.ava.replica) == before)
    }

    @Test func aPlayerNotInTheRoundIsRefusedAndChangesNothing() throws {
        let fixture = try Fixture()
        let before = try Fingerprint(fixture.ava.replica)
        #expect(throws: ReplicaError.self) {
            try fixture.ava.replica.recordScore(round: fixture.roundID, player: "Cal", hole: 1, strokes: 3)
        }
        #expect(try Fingerprint(fixture.ava.replica) == before)
    }

    @Test
    func aPlayerNotInTheRoundGetsNotAParticipant() throws {
        let fixture = try Fixture()
        let error = #expect(throws: ReplicaError.self) {
            try fixture.ava.replica.recordScore(round: fixture.roundID, player: "Cal", hole: 1, strokes: 3)
        }
        guard case .notAParticipant = error else {
            Issue.record("expected notAParticipant, got \(String(describing: error))")
            return
        }
    }

    /// The same commands with good input do write: the refusals above are not refusals of
    /// everything.
    @Test func goodInputWrites() throws {
        let fixture = try Fixture()
        let replica = fixture.ava.replica
        let before = try replica.status().opCount
        try replica.recordScore(round: fixture.roundID, player: "Gus", hole: 2, strokes: 3)
        try replica.recordScore(round: String(fixture.roundID.prefix(8)), player: "Ben", hole: 18, strokes: 10)
        try replica.correct(event: fixture.avaEvent.id.lowercased, strokes: 1)
        try replica.resolve(round: fixture.roundID, player: "Ben", hole: 1, strokes: 4)
        try replica.setPar(course: "Morley Field", hole: 18, par: 7)
        try replica.renameCourse("Morley Field", to: "Morley")
        #expect(try replica.status().opCount == before + 6)
        #expect(try replica.verify().isIntact)
    }
}
