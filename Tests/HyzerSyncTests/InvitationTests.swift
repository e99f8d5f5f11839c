import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit
import HyzerTestSupport
import Testing

@testable import HyzerSync

/// docs/security.md, "Invitations": a token holds an invitation, not the group secret; a
/// member admits a device only while the invitation, recorded as an op, has neither expired nor
/// been used up, counting the admissions every member recorded.
@Suite struct InvitationTests {
    let organizer: Peer
    let friend: Peer
    let invitation: Invitation
    /// A group the organizer created (so it may rekey).
    let group = GroupMembership(
        id: GroupMembership.groupID(organizer: AuthorID(bytes: seededKeys(101).publicKey)!), secret: [UInt8](repeating: 0x60, count: 32))
    static let secret = [UInt8](repeating: 0x61, count: Invitation.secretBytes)
    static let hour: UInt64 = 3_600_000

    init() throws {
        organizer = try Peer("organizer", keySeed: 101, group: group)
        friend = try Peer("friend", keySeed: 102, start: baseTime + 10, group: nil)
        try friend.replica.joinInvited(by: organizer.replica)  // a member: admitted (docs/security.md, "Membership")
        invitation = try organizer.replica.issueInvitation(secret: Self.secret, expiresAt: baseTime + Self.hour, uses: 2)
        try friend.replica.ingest(organizer.replica.delta(above: VersionVector()))
    }

    /// A device with the invitation, asking.
    func newcomer(_ seed: UInt8) throws -> (Peer, JoinRequest) {
        let peer = try Peer("newcomer-\(seed)", keySeed: seed, group: nil)
        try peer.replica.accept(try Invitation(token: invitation.token))
        return (peer, try #require(try peer.replica.joinRequest()))
    }

    func reply(_ admission: Admission, to peer: Peer) -> JoinReply? {
        admission.reply.flatMap { JoinReply(decoding: $0, invitation: invitation, device: peer.author) }
    }

    @Test func aTokenNamesTheGroupAndTheInvitationAndRefusesDamageAndOldTokens() throws {
        let token = invitation.token
        #expect(token.hasPrefix("hyzer3-") && token.count == 7 + 104)
        #expect(try Invitation(token: " \(token)\n") == invitation)
        #expect(!contains(Array(token.utf8), Array(Hex.encode(group.secret).utf8)), "no group secret in the token")
        var damaged = Array(token)
        damaged[20] = damaged[20] == "0" ? "1" : "0"
        #expect(throws: InvitationError.damagedToken) {
            _ = try Invitation(token: String(damaged))
        }
        #expect(throws: InvitationError.olderToken) { _ = try Invitation(token: "hyzer2-" + String(repeating: "00", count: 56)) }
    }

    @Test func aMemberAdmitsWithTheGroupSecretOfTheNewestEpoch() throws {
        let (peer, request) = try newcomer(110)
        let admission = try friend.replica.admit(request)
        #expect(admission.refusal == nil)
        guard case .admitted(let answer)? = reply(admission, to: peer) else { throw HandshakeTestError.unexpected }
        #expect(try peer.replica.complete(answer))
        let joined = try #require(try peer.replica.group())
        #expect(joined.id == group.id && joined.secret == group.secret && joined.epoch == 0)
        #expect(try peer.replica.pendingInvitation() == nil)
        // An answer meant for another device, or altered, is not taken.
        let (other, _) = try newcomer(111)
        #expect(JoinReply(decoding: answer.bytes, invitation: invitation, device: other.author) == nil)
        var altered = answer.bytes
        altered[60] ^= 1
        #expect(JoinReply(decoding: altered, invitation: invitation, device: peer.author) == nil)
    }

    @Test func usesAreCountedAcrossMembersAndAnAdmittedDeviceIsAnsweredAgain() throws {
        let (first, firstRequest) = try newcomer(120)
        let (second, secondRequest) = try newcomer(121)
        let (third, thirdRequest) = try newcomer(122)
        #expect(try organizer.replica.admit(firstRequest).refusal == nil)
        let opsBefore = try organizer.replica.status().opCount
        #expect(try organizer.replica.admit(firstRequest).refusal == nil, "asked again: answered again")
        #expect(try organizer.replica.status().opCount == opsBefore, "and not counted again")
        #expect(try friend.replica.admit(secondRequest).refusal == nil)
        // The friend has not heard of the organizer's admission yet: it would admit a third.
        try friend.replica.ingest(organizer.replica.delta(above: VersionVector()))
        let refusal = try friend.replica.admit(thirdRequest)
        #expect(refusal.refusal == .usedUp(uses: 2))
        #expect(reply(refusal, to: third) == .refused(.usedUp(uses: 2)), "the refusal is authenticated for the device")
        _ = (first, second)
    }

    @Test func anExpiredInvitationAdmitsNobodyNew() throws {
        let (early, earlyRequest) = try newcomer(130)
        #expect(try friend.replica.admit(earlyRequest).refusal == nil)
        friend.clock.set(baseTime + Self.hour)
        let (_, lateRequest) = try newcomer(131)
        #expect(try friend.replica.admit(lateRequest).refusal == .expired(at: baseTime + Self.hour))
        #expect(try friend.replica.admit(earlyRequest).refusal == nil, "a device admitted in time is answered again")
        _ = early
    }

    @Test func requestsThatProveNothingGetNoReply() throws {
        let (_, request) = try newcomer(140)
        // Forged: the right invitation id, a tag made without the key.
        var forged = request.bytes
        forged[forged.count - 1] ^= 1
        let forgedAdmission = try friend.replica.admit(try #require(JoinRequest(decoding: forged)))
        #expect(forgedAdmission.refusal == .badProof && forgedAdmission.reply == nil)
        // An invitation this member never heard of.
        let stranger = JoinRequest(
            invitation: Invitation(groupID: group.id, secret: [UInt8](repeating: 9, count: 32)), device: request.device)
        #expect(try friend.replica.admit(stranger).refusal == .unknownInvitation)
        #expect(try friend.replica.admit(stranger).reply == nil)
        let lonely = try Peer("lonely", keySeed: 141, group: nil)
        #expect(try lonely.replica.admit(request).refusal == .notThisGroup)
        #expect(JoinRequest(decoding: Array(request.bytes.dropLast())) == nil)
    }

    @Test func theOrganizersRekeyReachesAnAdmittedDeviceItHasNotHeardFrom() throws {
        let (peer, request) = try newcomer(150)
        guard case .admitted(let answer)? = reply(try organizer.replica.admit(request), to: peer) else {
            throw HandshakeTestError.unexpected
        }
        #expect(try peer.replica.complete(answer))
        try organizer.replica.rekeyGroup(newSecret: [UInt8](repeating: 0x62, count: 32))
        #expect(
            try organizer.replica.group()?.recipients == [organizer.author, friend.author, peer.author],
            "the members it admitted, heard from or not")
        let planted = try Peer("planted", keySeed: 151, group: group)
        try organizer.replica.ingest(planted.replica.delta(above: VersionVector()))
        try organizer.replica.rekeyGroup(newSecret: [UInt8](repeating: 0x63, count: 32))
        #expect(
            !(try organizer.replica.group()!.recipients.contains(planted.author)), "a device heard from but never admitted is no recipient")
    }

    /// The folder: the device writes its request, a member's folder sync answers it, the device
    /// reads the answer and syncs on; a reply forged without the invitation key is not taken,
    /// and files that are not requests are not read.
    @Test func aDeviceJoinsThroughTheFolder() throws {
        let shared = SharedDirectory()
        let (peer, _) = try newcomer(160)
        #expect(try FolderJoin(replica: peer.replica, folder: shared.folder).ask() == nil)
        let joins = "hyzer/\(group.id.lowercased)/joins"
        let requestName = peer.author.hex + ".hzj"
        #expect(try shared.folder.list(joins).map(\.name) == [requestName])
        // Someone with the folder but not the invitation plants a reply: it is not taken.
        try shared.folder.writeAtomically(joins + "/" + peer.author.hex + ".hza", [UInt8](repeating: 7, count: JoinAnswer.byteCount))
        #expect(try FolderJoin(replica: peer.replica, folder: shared.folder).ask() == nil)
        try shared.folder.remove(joins + "/" + peer.author.hex + ".hza")
        // Junk beside it: a wrong size, a symbolic link, a name that is no device.
        try shared.folder.writeAtomically(joins + "/" + String(repeating: "ab", count: 32) + ".hzj", [1, 2, 3])
        try FileManager.default.createSymbolicLink(
            atPath: shared.url(joins + "/" + String(repeating: "cd", count: 32) + ".hzj").path, withDestinationPath: "/etc/passwd")
        try shared.folder.writeAtomically(joins + "/notes.hzj", [1])

        let report = try FolderSync(replica: friend.replica, folder: shared.folder).run()
        #expect(report.devicesAdmitted == 1)
        #expect(report.rejected.map(\.reason) == ["not a join request"])
        #expect(report.ignored.isEmpty, "the joins directory is not a stray member")
        guard case .admitted? = try FolderJoin(replica: peer.replica, folder: shared.folder).ask() else {
            throw HandshakeTestError.unexpected
        }
        #expect(try peer.replica.group()?.id == group.id)
        #expect(!(try shared.folder.list(joins).map(\.name).contains(requestName)), "the request is removed")
        let synced = try FolderSync(replica: peer.replica, folder: shared.folder).run()
        #expect(synced.members == 1 && synced.opsIngested > 0)
    }

    /// TCP: a join request in place of the first handshake message is decided by the store and
    /// answered; then the connection ends.
    @Test func theEngineAsksTheStoreAndAnswersOnce() throws {
        let (peer, request) = try newcomer(170)
        var listener = try EngineSide(friend, role: .listener, mode: .live).engine
        let actions = listener.receive(frame: request.bytes, now: 0)
        guard case .admit(let asked)? = actions.first, actions.count == 1 else { throw HandshakeTestError.unexpected }
        #expect(asked == request)
        let answered = listener.admitted(try friend.replica.admit(asked), now: 1)
        #expect(answered.count == 2 && answered.closedWith == nil && listener.isClosed)
        guard case .admitted? = JoinReply(decoding: HandDialer.writes(answered)[0], invitation: invitation, device: peer.author) else {
            throw HandshakeTestError.unexpected
        }
        // Used up: the refusal goes back, and the listener names it.
        let (_, second) = try newcomer(171)
        let (_, third) = try newcomer(172)
        _ = try friend.replica.admit(second)
        var again = try EngineSide(friend, role: .listener, mode: .live).engine
        _ = again.receive(frame: third.bytes, now: 0)
        let refused = again.admitted(try friend.replica.admit(third), now: 1)
        #expect(refused.closedWith == .joinRefused(.usedUp(uses: 2)) && HandDialer.writes(refused).count == 1)
        // Anything else before the decision is a protocol violation.
        var busy = try EngineSide(friend, role: .listener, mode: .live).engine
        _ = busy.receive(frame: request.bytes, now: 0)
        #expect(busy.receive(frame: [1, 2, 3], now: 1).closedWith == .protocolViolation(.messageDuringAdmission))
    }
}
