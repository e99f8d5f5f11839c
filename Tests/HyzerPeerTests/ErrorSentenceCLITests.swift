import Foundation
import HyzerTestSupport
import Testing

/// The command line words the library's typed errors (docs/architecture.md, "Errors"): where the
/// library's message names no flag or command, the binary's sentence puts them back, exactly as
/// before the errors were typed. One sentence on stderr, exit status 1, store unchanged.
@Suite struct ErrorSentenceCLITests {
    let directory = TemporaryDirectory("error-sentence")
    var cli: BinaryRunner { BinaryRunner(store: directory.path("phone")) }

    /// Runs `arguments` and checks the refusal: `error` on stderr, nothing on stdout, status 1,
    /// the store unchanged.
    func refused(_ arguments: String..., error: String) throws {
        let before = try cli.digest()
        let result = try cli.run(arguments)
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr == "error: \(error)\n")
        #expect(result.stdout == "")
        #expect(try cli.digest() == before)
    }

    @Test func aStoreWithoutAnOwnerOrARoundOrAGroup() throws {
        try cli.run("init", "--name", "laptop")
        try refused("standings", "latest", error: "there is no round yet; start one with `hyzer-peer round start`")
        try cli.run("player", "add", "Ann")
        try refused(
            "round", "start", "--course", "Morley Field", "--players", "Ann",
            error: "name the round's organizer with --organizer PLAYER (this device has no owner)")
        try refused(
            "group", "invite",
            error: "this replica belongs to no group, so it has nobody to invite; run `hyzer-peer group create` first")
        try refused(
            "group", "members", error: "this replica belongs to no group; run `hyzer-peer group create`, or `hyzer-peer group join TOKEN`")
        try refused(
            "course", "add", "Long", "--pars", Array(repeating: "3", count: 37).joined(separator: ","),
            error: "a course has 1 to 36 holes; give one par per hole, like --pars 3,3,4")
    }

    @Test func aRoundWithNobodyAndACardThatCannotBePlaced() throws {
        try cli.run("init", "--name", "phone", "--owner", "Ann")
        try refused(
            "round", "start", "--course", "Morley Field", error: "a round needs at least one player: use --players A,B or --guest NAME")
        try cli.run("course", "add", "Tiny", "--pars", "3")
        let round = try cli.run("round", "start", "--course", "Tiny", "--players", "Ann").output
        let short = String(round.prefix(8))
        try refused(
            "card", round, "Zed 3",
            error: "'Zed' matches no participant of round \(short); the participants are listed by `hyzer-peer round show \(short)`")
        #expect(try cli.run("card", round, "Ann 3").status == 0)
        try refused("card", round, "Ann 4", error: "every hole of round \(round) has a score; name the hole with --hole N")
    }

    /// `ReplicaError`'s messages name no command; the binary's sentence for a deleted course and
    /// a player who is not in the round still does, as before they were typed.
    @Test func aDeletedCourseAndAPlayerOutsideTheRound() throws {
        try cli.run("init", "--name", "phone", "--owner", "Ann")
        try cli.run("player", "add", "Ben")
        try cli.run("course", "add", "Tiny", "--pars", "3")
        let round = try cli.run("round", "start", "--course", "Tiny", "--players", "Ann").output
        try refused(
            "score", round, "--player", "Ben", "--hole", "1", "--strokes", "3",
            error: "Ben is not playing round \(round); score one of its participants (see `hyzer-peer round show \(round)`)")
        try cli.run("course", "delete", "Tiny")
        try refused(
            "round", "start", "--course", "Tiny", "--players", "Ann",
            error: "course Tiny was deleted; choose another course (`hyzer-peer course list`)")
    }
}
