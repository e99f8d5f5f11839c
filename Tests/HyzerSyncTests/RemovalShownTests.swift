import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerTestSupport
import Testing

@testable import HyzerKit
@testable import HyzerSync

/// docs/sync-protocol.md, "Removed devices": a member that refuses a device the organizer
/// removed shows it the organizer's signed removal in place of its identity, and the removed
/// device, having checked it, knows that no retry changes the answer; nothing else, from a
/// member, a stranger or a recording, makes a device believe it was removed.
@Suite struct RemovalShownTests {
    let organizer: Peer
    let phone: Peer
    let friend: Peer

    init() throws {
        let organizerKeys = seededKeys(81)
        let group = GroupMembership(
            id: GroupMembership.groupID(organizer: AuthorID(bytes: organizerKeys.publicKey)!), secret: [UInt8](repeating: 0x60, count: 32))
        organizer = try Peer("organizer", keySeed: 81, group: group)
        phone = try Peer("phone", keySeed: 82, start: baseTime + 1_000, group: nil)
        friend = try Peer("friend", keySeed: 83, start: baseTime + 2_000, group: nil)
        for peer in [phone, friend] {
            try peer.replica.joinInvited(by: organizer.replica)
            try organizer.replica.ingest(peer.replica.delta(above: VersionVector()))
        }
        for peer in [phone, friend] { try peer.replica.ingest(organizer.replica.delta(above: VersionVector())) }
    }

    /// Runs the phone's engine (the dialer) against `listener`'s engine, with `group` for the
    /// listener (its own group unless told); returns how each closed.
    func dial(_ listener: Peer, group: GroupMembership? = nil) throws -> (dialer: SyncFailure?, listener: SyncFailure?) {
        var dialer = try EngineSide(phone, role: .dialer, mode: .live, group: try #require(try phone.replica.group())).engine
        var member = try EngineSide(listener, role: .listener, mode: .live, group: try group ?? #require(try listener.replica.group()))
            .engine
        var toListener = HandDialer.writes(dialer.start(now: 0))
        var ends: (dialer: SyncFailure?, listener: SyncFailure?) = (nil, nil)
        for _ in 0..<4 where !toListener.isEmpty {
            var toDialer: [[UInt8]] = []
            for frame in toListener {
                let actions = member.receive(frame: frame, now: 0)
                toDialer += HandDialer.writes(actions)
                ends.listener = ends.listener ?? actions.closedWith
            }
            toListener = []
            for frame in toDialer {
                let actions = dialer.receive(frame: frame, now: 0)
                toListener += HandDialer.writes(actions)
                ends.dialer = ends.dialer ?? actions.closedWith
            }
        }
        if member.isClosed, !dialer.isClosed { ends.dialer = dialer.connectionClosed().closedWith }
        return ends
    }

    /// The organizer removes the phone, then writes on; the friend receives its log.
    func removePhone() throws {
        try organizer.replica.removeMember(phone.author.hex, newSecret: [UInt8](repeating: 0x61, count: 32))
        _ = try organizer.replica.addPlayer(name: "Written after the removal")
        try friend.replica.ingest(organizer.replica.delta(above: VersionVector()))
    }

    @Test func aRemovedDeviceIsShownItsRemovalByTheOrganizerAndByAMember() throws {
        #expect(try dial(friend) == (nil, nil), "before the removal, the phone syncs")
        try removePhone()
        // The friend received the removal in a segment of its own, and kept its signature
        // although the organizer's later ops arrived with it.
        let proof = try #require(try friend.replica.group()?.removalProof(for: phone.author))
        #expect(proof.device == phone.author && proof.segment.tails.count == 1)
        for member in [organizer, friend] {
            let ends = try dial(member)
            #expect(ends.dialer == .removedFromGroup, "\(member.name)")
            #expect(ends.listener == .handshakeRefused(.notAdmitted(peer: phone.author, removed: true)))
        }
    }

    /// Without a proof to show (a removal whose signature a build before dropped), a member
    /// refuses as before and the phone cannot tell why: `notAdmittedByPeer`, dialed again.
    @Test func withoutAProofTheRefusalIsTheBareClose() throws {
        try removePhone()
        let group = try #require(try friend.replica.group())
        let bare = GroupMembership(id: group.id, secrets: group.secrets, recipients: group.recipients, removed: group.removed, lineage: [])
        #expect(try dial(friend, group: bare) == (.notAdmittedByPeer, .handshakeRefused(.notAdmitted(peer: phone.author, removed: true))))
    }

    /// A member that shows a removal the organizer did not sign (its own, the organizer's of
    /// another device) proves nothing: the phone goes on dialing.
    @Test func aRemovalNotSignedByTheOrganizerForThisDeviceIsNotBelieved() throws {
        let group = try #require(try friend.replica.group())
        let removedByFriend = AuthorSegment(ops: [
            SignedOp(
                keys: friend.keys, author: friend.author, sequence: 1, previousHash: SignedOp.noPreviousHash,
                clock: HLCTimestamp(physicalMilliseconds: baseTime, counter: 0), payload: .memberRemoved(device: phone.author, through: 1))
        ])
        #expect(RemovalProof(removedByFriend, group: group.id) == nil)
        let stranger = AuthorID(bytes: seededKeys(84).publicKey)!
        let organizerKeys = seededKeys(81)
        let removedStranger = AuthorSegment(ops: [
            SignedOp(
                keys: organizerKeys, author: organizer.author, sequence: 1, previousHash: SignedOp.noPreviousHash,
                clock: HLCTimestamp(physicalMilliseconds: baseTime, counter: 0), payload: .memberRemoved(device: stranger, through: 1))
        ])
        let ofAnother = try #require(RemovalProof(removedStranger, group: group.id))
        #expect(!ofAnother.removes(phone.author, lineage: []))
        // A hostile member holding the group secret claims the phone was removed and shows the
        // organizer's removal of another device: the real listener code sends it as it is.
        let claimed = GroupMembership(
            id: group.id, secrets: group.secrets, recipients: group.recipients, removed: [phone.author], lineage: [],
            removalProofs: [phone.author: ofAnother])
        let ends = try dial(friend, group: claimed)
        #expect(ends.dialer == .handshakeRefused(.unprovenRemoval))
        // A forged one cannot even be carried: `RemovalProof` refuses it on the listener's side
        // too, so the bytes are sent raw, sealed as the refusal, by hand.
        var dialer = Handshake(role: .dialer, author: phone.author, sign: { phone.replica.signature(of: $0) }, group: group)
        var listener = Handshake(role: .listener, author: friend.author, sign: { friend.replica.signature(of: $0) }, group: group)
        guard case .send(let two) = try listener.receive(dialer.start()!), case .send = try dialer.receive(two),
            case .awaitingListenerIdentity(_, let keys) = dialer.state
        else { throw HandshakeTestError.unexpected }
        let forged = SecretBox.seal(removedByFriend.encoded(), key: keys.listenerRefusal, nonce: [UInt8](repeating: 0, count: 24))
        #expect(throws: HandshakeError.unprovenRemoval) { _ = try dialer.receive(forged) }
    }

    /// docs/formats.md, "Removal proof": the organizer of key seed 32 × `01` removes device
    /// 32 × `c3` through op 300 in the first op of its log.
    @Test func theRemovalProofTestVector() throws {
        let keys = seededKeys(1)
        let organizer = try #require(AuthorID(bytes: keys.publicKey))
        let device = try #require(AuthorID(bytes: [UInt8](repeating: 0xc3, count: 32)))
        let op = SignedOp(
            keys: keys, author: organizer, sequence: 1, previousHash: SignedOp.noPreviousHash,
            clock: HLCTimestamp(physicalMilliseconds: 1_700_000_000_000, counter: 0), payload: .memberRemoved(device: device, through: 300))
        let proof = try #require(RemovalProof(AuthorSegment(ops: [op]), group: GroupMembership.groupID(organizer: organizer)))
        #expect(
            Hex.encode(proof.bytes)
                == "8a88e3dd7409f195fd52db2d3cba5d72ca6709bf1d94121bf3748801b40f6f5c" + "01" + String(repeating: "00", count: 32) + "01"
                + "2f"
                + "0000018bcfe568000000000011" + String(repeating: "c3", count: 32) + "ac02"
                + "a53311d9df089baa3d9b1b404616702b2594f5e28d9adbb6cb81c9c57c0c0cd3"
                + "a721593f5977f8558db49536accf6c85fe00606458487dbadb78b9a0d6a4ec06")
        #expect(RemovalProof(decoding: proof.bytes, group: GroupMembership.groupID(organizer: organizer)) == proof)
        #expect(RemovalProof(decoding: proof.bytes, group: try #require(try friend.replica.group()).id) == nil, "another group's")
        #expect(proof.removes(device, lineage: []) && !proof.removes(organizer, lineage: []))
    }

    /// Someone without this session's keys (a stranger on the path, or a member replaying a
    /// refusal it recorded from another session) cannot seal a refusal the phone opens: its bytes
    /// fail as a malformed identity, a failure the phone retries.
    @Test func aRefusalFromAnotherSessionOrAStrangerIsNotBelieved() throws {
        try removePhone()
        let phoneGroup = try #require(try phone.replica.group())
        let friendGroup = try #require(try friend.replica.group())
        // A real refusal, recorded.
        var first = Handshake(role: .dialer, author: phone.author, sign: { phone.replica.signature(of: $0) }, group: phoneGroup)
        var member = Handshake(role: .listener, author: friend.author, sign: { friend.replica.signature(of: $0) }, group: friendGroup)
        guard case .send(let two) = try member.receive(first.start()!), case .send(let three) = try first.receive(two),
            case .refuse(let recorded, _) = try member.receive(three)
        else { throw HandshakeTestError.unexpected }
        #expect(throws: HandshakeError.removedFromGroup(phone.author)) { _ = try first.receive(recorded) }
        // Replayed into a new session of the phone with the same member.
        var second = Handshake(role: .dialer, author: phone.author, sign: { phone.replica.signature(of: $0) }, group: phoneGroup)
        var again = Handshake(role: .listener, author: friend.author, sign: { friend.replica.signature(of: $0) }, group: friendGroup)
        guard case .send(let secondTwo) = try again.receive(second.start()!), case .send = try second.receive(secondTwo) else {
            throw HandshakeTestError.unexpected
        }
        do {
            _ = try second.receive(recorded)
            Issue.record("a recorded refusal completed the handshake")
        } catch {
            #expect(error != .removedFromGroup(phone.author), "a recorded refusal was believed in another session")
        }
        // Bytes of any size in place of the listener's identity.
        for size in [0, 16, 200, 496] {
            var third = Handshake(role: .dialer, author: phone.author, sign: { phone.replica.signature(of: $0) }, group: phoneGroup)
            var listener = Handshake(role: .listener, author: friend.author, sign: { friend.replica.signature(of: $0) }, group: friendGroup)
            guard case .send(let reply) = try listener.receive(third.start()!), case .send = try third.receive(reply) else {
                throw HandshakeTestError.unexpected
            }
            do {
                _ = try third.receive([UInt8](repeating: 0xA5, count: size))
                Issue.record("random bytes completed the handshake")
            } catch {
                #expect(error != .removedFromGroup(phone.author), "\(size) random bytes")
            }
        }
    }
}
