import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit
import HyzerTestSupport
import Testing

@testable import HyzerSync

/// docs/security.md, "Membership": in a group with an organizer only admitted devices and
/// successors of members are members; a removal removes every key of a lineage; and only a
/// holder of an invitation's token can cause a use of it.
@Suite struct MembershipTests {
    let organizer: Peer
    let mallory: Peer
    let friend: Peer
    let group: GroupMembership
    static let newSecret = [UInt8](repeating: 0x71, count: 32)

    init() throws {
        let organizerKeys = seededKeys(121)
        group = GroupMembership(
            id: GroupMembership.groupID(organizer: AuthorID(bytes: organizerKeys.publicKey)!), secret: [UInt8](repeating: 0x70, count: 32))
        organizer = try Peer("organizer", owner: "Olga", keySeed: 121, group: group)
        mallory = try Peer("mallory", owner: "Mal", keySeed: 122, start: baseTime + 1_000, group: nil)
        friend = try Peer("friend", owner: "Fay", keySeed: 123, start: baseTime + 2_000, group: nil)
        for peer in [mallory, friend] {
            try peer.replica.joinInvited(by: organizer.replica)
            try organizer.replica.ingest(peer.replica.delta(above: VersionVector()))
        }
    }

    /// Runs a handshake of `dialer` holding `dialerGroup` with `listener`; returns the failure, if any.
    func handshake(_ dialer: Replica, _ dialerGroup: GroupMembership, to listener: Replica) throws -> HandshakeError? {
        var dialing = Handshake(role: .dialer, author: dialer.author, sign: { dialer.signature(of: $0) }, group: dialerGroup)
        var listening = Handshake(
            role: .listener, author: listener.author, sign: { listener.signature(of: $0) }, group: try #require(try listener.group()))
        do {
            guard case .send(let two) = try listening.receive(dialing.start()!), case .send(let three) = try dialing.receive(two),
                case .established(_, let four?) = try listening.receive(three), case .established = try dialing.receive(four)
            else { return .unexpectedMessage }
            return nil
        } catch {
            return error
        }
    }

    /// Connections answering one change share one delta read (`ConnectionSignals`), and the
    /// removals come from that read's snapshot: a peer removed while connected is sent nothing
    /// more, whether its connection reads the delta or takes the one another connection read.
    @Test(arguments: [true, false]) func aSharedDeltaReachesNoRemovedPeer(removedPeerReadsFirst: Bool) throws {
        var toMallory = try EnginePair(dialer: mallory, listener: organizer, mode: .live, group: group)
        var toFriend = try EnginePair(dialer: friend, listener: organizer, mode: .live, group: group)
        let signals = ConnectionSignals()
        toMallory.sides[1].driver.sharing = signals
        toFriend.sides[1].driver.sharing = signals
        try toMallory.start()
        try toFriend.start()
        #expect(
            !toMallory.sides.contains { $0.isOver } && !toFriend.sides.contains { $0.isOver }, "\(toMallory.report); \(toFriend.report)")

        try organizer.replica.removeMember(mallory.author.hex, newSecret: Self.newSecret)
        try organizer.replica.addPlayer(name: "Zed")
        signals.publish(.storeChanged)
        if removedPeerReadsFirst {
            try toMallory.storeChanged(at: 1, now: 1_000)
            try toFriend.storeChanged(at: 1, now: 1_000)
        } else {
            try toFriend.storeChanged(at: 1, now: 1_000)
            try toMallory.storeChanged(at: 1, now: 1_000)
        }
        #expect(toMallory.sides[1].failure == .peerRemoved(mallory.author))
        let head = try organizer.replica.versionVector()[organizer.author]
        #expect(try friend.replica.versionVector()[organizer.author] == head)
        #expect(try mallory.replica.versionVector()[organizer.author] < head)
    }

    @Test func theOrganizerAndInvitedDevicesAreTheMembers() throws {
        let members = try organizer.replica.groupMembers()
        #expect(Set(members.map(\.id)) == [organizer.author, mallory.author, friend.author])
        #expect(members.allSatisfy { !$0.removed })
        #expect(members.first { $0.id == friend.author }?.name == "friend")
        #expect(members.first { $0.id == organizer.author }?.isOrganizer == true)
    }

    /// Attack (a): a device that ran `device continue` and is then removed opened every later
    /// epoch with its predecessor key, which the rekey still sealed to.
    @Test func aDeviceThatContinuedAndWasRemovedOpensNoLaterEpoch() throws {
        try organizer.replica.rekeyGroup(newSecret: [UInt8](repeating: 0x72, count: 32))  // epoch 1, sealed to Mallory's key
        try mallory.replica.pull(from: organizer.replica)
        let continued = try mallory.replica.continueUnderNewKey(seededKeys(124))
        #expect(try continued.group()?.epoch == 1, "the successor keeps the epochs sealed to its predecessor")
        try organizer.replica.ingest(continued.delta(above: try organizer.replica.versionVector()))
        let removal = try organizer.replica.removeMember(continued.author.hex, newSecret: Self.newSecret)
        #expect(removal.epoch == 2)
        let sealed = try #require(try organizer.replica.group()).recipients
        #expect(!sealed.contains(mallory.author), "no later epoch is sealed to the predecessor key")
        #expect(!sealed.contains(continued.author))
        #expect(sealed == [organizer.author, friend.author])
        try continued.ingest(organizer.replica.delta(above: try continued.versionVector()))
        let held = try #require(try continued.group())
        #expect(held.epoch == 1, "the removed store opens no later epoch")
        #expect(held.secrets[2] == nil)
        #expect(try organizer.replica.groupMembers().filter(\.removed).map(\.id).sorted() == [mallory.author, continued.author].sorted())
        try friend.replica.pull(from: organizer.replica)
        #expect(try friend.replica.group()?.epoch == 2)
    }

    /// Attack (b): a member plants a second identity whose ops reach the organizer before the
    /// member is removed. It was a rekey recipient, opened the new epoch, its ops counted and
    /// its handshake completed.
    @Test func aPlantedIdentityIsNoMemberBeforeOrAfterTheRemoval() throws {
        let planted = try Peer("planted", owner: "Ghost", keySeed: 125, start: baseTime + 3_000, group: group)
        try mallory.replica.pull(from: planted.replica)
        let report = try organizer.replica.pull(from: mallory.replica)
        #expect(report.rejected == [.notAMember(author: planted.author)], "ingest reports the stranger")
        #expect(!(try organizer.replica.players().map(\.displayName).contains("Ghost")), "its ops count nowhere")
        #expect(try organizer.replica.devices().map(\.id).contains(planted.author) == false)
        #expect(!(try organizer.replica.groupMembers().map(\.id).contains(planted.author)))
        #expect(try organizer.replica.verify().isIntact)

        try organizer.replica.removeMember(mallory.author.hex, newSecret: Self.newSecret)
        let sealed = try #require(try organizer.replica.group()).recipients
        #expect(!sealed.contains(planted.author), "no rekey recipient")
        try planted.replica.pull(from: organizer.replica)
        #expect(try planted.replica.group()?.epoch == 0, "it opens no later epoch")
        #expect(try handshake(planted.replica, try #require(try planted.replica.group()), to: organizer.replica) != nil)
        #expect(try handshake(planted.replica, group, to: organizer.replica) != nil, "not under the old epoch either")
        #expect(try handshake(friend.replica, group, to: organizer.replica) == nil, "a member the rekey has not reached gets through")
        #expect(!(try organizer.replica.groupMembers().map(\.id).contains(planted.author)))
    }

    /// Attack (c): a member wrote `memberAdmitted` for another member's pending invitation (its
    /// key is in the log) and used it up before the invited device arrived.
    @Test func aMemberCannotUseUpAnotherMembersInvitation() throws {
        let invitation = try organizer.replica.issueInvitation(
            secret: [UInt8](repeating: 0x73, count: 32), expiresAt: UInt64(Int64.max), uses: 1)
        try mallory.replica.pull(from: organizer.replica)
        let planted = AuthorID(bytes: seededKeys(126).publicKey)!
        // Mallory holds the invitation's key and id, not the token: every admission she can write fails.
        let forged = JoinRequest(invitation: Invitation(groupID: group.id, secret: [UInt8](repeating: 0x74, count: 32)), device: planted)
        try mallory.appendRaw(.memberAdmitted(invite: invitation.id, device: planted), at: baseTime + 10_000)
        try mallory.appendRaw(
            .memberAdmittedWithProof(invite: invitation.id, device: planted, proof: forged.proof), at: baseTime + 10_001)
        try mallory.appendRaw(
            .memberAdmittedWithProof(
                invite: invitation.id, device: planted, proof: [UInt8](repeating: 0, count: OpPayload.Limits.joinProofBytes)),
            at: baseTime + 10_002)
        // A proof the token made for the friend does not admit anyone else.
        let friendsProof = JoinRequest(invitation: invitation, device: friend.author).proof
        try mallory.appendRaw(.memberAdmittedWithProof(invite: invitation.id, device: planted, proof: friendsProof), at: baseTime + 10_003)
        try organizer.replica.pull(from: mallory.replica)
        #expect(!(try organizer.replica.groupMembers().map(\.id).contains(planted)), "no fake admission makes a member")

        let newcomer = try Peer("newcomer", keySeed: 127, start: baseTime + 4_000, group: nil)
        try newcomer.replica.accept(invitation)
        let admission = try organizer.replica.admit(try #require(try newcomer.replica.joinRequest()))
        #expect(admission.refusal == nil, "the invitation is unused: the invited device still joins")
        let reply = try #require(admission.reply)
        guard case .admitted(let answer)? = JoinReply(decoding: reply, invitation: invitation, device: newcomer.author) else {
            Issue.record("no answer")
            return
        }
        #expect(try newcomer.replica.complete(answer))
        #expect(try organizer.replica.groupMembers().map(\.id).contains(newcomer.author))
    }

    /// An admission that arrives after the admitted device's ops makes them count, and every
    /// arrival order ends in the same views.
    @Test func anAdmissionArrivingLateCountsTheDevicesOpsInEveryOrder() throws {
        let first = try Peer("first", keySeed: 129, group: group)
        try first.replica.pull(from: organizer.replica)
        let late = try Peer("late", owner: "Lou", keySeed: 128, start: baseTime + 5_000, group: nil)
        let invitation = try organizer.replica.issueInvitation(
            secret: [UInt8](repeating: 0x75, count: 32), expiresAt: UInt64(Int64.max), uses: 1)
        try late.replica.join(with: invitation, through: organizer.replica)
        let lateLog = try late.replica.delta(above: VersionVector())
        let early = try first.replica.ingest(lateLog)
        #expect(early.rejected == [.notAMember(author: late.author)])
        #expect(!(try first.replica.players().map(\.displayName).contains("Lou")))
        try first.replica.pull(from: organizer.replica)
        #expect(try first.replica.players().map(\.displayName).contains("Lou"), "the admission makes its ops count")
        #expect(try first.replica.verify().isIntact, "the views equal a rebuild from the log")

        let organizerLog = try organizer.replica.delta(above: VersionVector())
        let second = try Peer("second", keySeed: 130, group: group)
        try second.replica.ingest(organizerLog + lateLog)
        let third = try Peer("third", keySeed: 133, group: group)
        try third.replica.ingest(lateLog.reversed() + organizerLog.reversed())
        for other in [second, third] {
            #expect(try StoreState(other.replica).players == StoreState(first.replica).players)
            #expect(try StoreState(other.replica).rounds == StoreState(first.replica).rounds)
        }
    }

    /// A group with a random id (created before organizers existed) keeps the old rule: every
    /// holder of the secret is a member.
    @Test func aRandomIdGroupCountsEveryHolderOfTheSecret() throws {
        let one = try Peer("one", owner: "Uno", keySeed: 131)
        let two = try Peer("two", owner: "Dos", keySeed: 132)
        let report = try one.replica.pull(from: two.replica)
        #expect(report.rejected.isEmpty)
        #expect(try one.replica.players().map(\.displayName).contains("Dos"))
        #expect(Set(try one.replica.groupMembers().map(\.id)) == [one.author, two.author])
    }
}

extension Replica {
    /// Takes everything `other` holds that this replica lacks.
    @discardableResult
    fileprivate func pull(from other: Replica) throws -> IngestReport {
        try ingest(other.delta(above: versionVector()))
    }
}
