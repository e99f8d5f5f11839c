import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit
import HyzerTestSupport
import Testing

@testable import HyzerSync

/// docs/security.md, "Re-keying": after the organizer removes a device and rekeys, the remaining
/// members hold the new secret, and neither the removed device nor anyone who kept the old
/// secret gets through a handshake or a sealed file.
@Suite struct RekeyTests {
    let organizer: Peer
    let phone: Peer
    let friend: Peer
    let group: GroupMembership
    static let newSecret = [UInt8](repeating: 0x51, count: 32)

    init() throws {
        let organizerKeys = seededKeys(91)
        group = GroupMembership(
            id: GroupMembership.groupID(organizer: AuthorID(bytes: organizerKeys.publicKey)!), secret: [UInt8](repeating: 0x50, count: 32))
        organizer = try Peer("organizer", keySeed: 91, group: group)
        phone = try Peer("phone", keySeed: 92, start: baseTime + 1_000, group: nil)
        friend = try Peer("friend", keySeed: 93, start: baseTime + 2_000, group: nil)
        for peer in [phone, friend] {
            try peer.replica.joinInvited(by: organizer.replica)  // members: admitted (docs/security.md, "Membership")
            try organizer.replica.ingest(peer.replica.delta(above: VersionVector()))
        }
    }

    func handshake(_ role: Handshake.Role, _ peer: Peer, group: GroupMembership) -> Handshake {
        let replica = peer.replica
        return Handshake(role: role, author: peer.author, sign: { replica.signature(of: $0) }, group: group)
    }

    /// Runs a handshake to its end; returns the listener's failure, if any.
    func connect(_ dialerPeer: Peer, _ dialerGroup: GroupMembership, to listenerPeer: Peer, dialEpoch: UInt32? = nil) throws
        -> HandshakeError?
    {
        try connect(dialerPeer.replica, dialerGroup, to: listenerPeer.replica, dialEpoch: dialEpoch)
    }

    func connect(_ replica: Replica, _ dialerGroup: GroupMembership, to listenerReplica: Replica, dialEpoch: UInt32? = nil) throws
        -> HandshakeError?
    {
        var dialer = Handshake(
            role: .dialer, author: replica.author, sign: { replica.signature(of: $0) }, group: dialerGroup, dialEpoch: dialEpoch)
        let listenerGroup = try #require(try listenerReplica.group())
        var listener = Handshake(
            role: .listener, author: listenerReplica.author, sign: { listenerReplica.signature(of: $0) }, group: listenerGroup)
        do {
            guard case .send(let two) = try listener.receive(dialer.start()!), case .send(let three) = try dialer.receive(two) else {
                return .unexpectedMessage
            }
            switch try listener.receive(three) {
            case .established(_, let four?):
                guard case .established = try dialer.receive(four) else { return .unexpectedMessage }
                return nil
            case .refuse(let shown, let refusal):
                // A removed dialer is shown the organizer's removal (of it or its predecessor), and believes it.
                do {
                    _ = try dialer.receive(shown)
                    Issue.record("the dialer took the shown removal for an identity")
                } catch {
                    if case .removedFromGroup = error {} else { Issue.record("the dialer did not believe the removal: \(error)") }
                }
                return refusal
            default:
                return .unexpectedMessage
            }
        } catch {
            return error
        }
    }

    @Test func theRemainingMembersOpenTheNewSecretAndTheRemovedDeviceDoesNot() throws {
        let removal = try organizer.replica.removeMember(phone.author.hex, newSecret: Self.newSecret)
        #expect(removal.epoch == 1)
        let log = try organizer.replica.delta(above: VersionVector())
        for peer in [phone, friend] { try peer.replica.ingest(log) }
        let (organizerGroup, friendGroup, phoneGroup) = (
            try organizer.replica.group()!, try friend.replica.group()!, try phone.replica.group()!
        )
        #expect(organizerGroup.epoch == 1 && organizerGroup.secret == Self.newSecret)
        #expect(friendGroup.epoch == 1 && friendGroup.secret == Self.newSecret && friendGroup.secrets[0] == group.secret)
        #expect(phoneGroup.epoch == 0, "the new secret was not sealed to the removed phone")
        #expect(friendGroup.recipients == [organizer.author, friend.author])
        #expect(friendGroup.removed == [phone.author])

        // A device admitted now receives the new epoch's secret.
        let invitation = try organizer.replica.issueInvitation(
            secret: [UInt8](repeating: 0x52, count: 32), expiresAt: baseTime + 3_600_000, uses: 1)
        let newcomer = try Peer("newcomer", keySeed: 94, group: nil)
        try newcomer.replica.accept(invitation)
        guard
            case .admitted(let answer)? = try organizer.replica.admit(try #require(try newcomer.replica.joinRequest())).reply
                .flatMap({ JoinReply(decoding: $0, invitation: invitation, device: newcomer.author) })
        else { throw HandshakeTestError.unexpected }
        #expect(try newcomer.replica.complete(answer))
        let joined = try #require(try newcomer.replica.group())
        #expect(joined.id == group.id && joined.epoch == 1 && joined.secret == Self.newSecret)

        // Folder files: sealed under epoch 1, the phone cannot open them.
        let sealed = SealedFile.seal([1, 2, 3], group: organizerGroup)
        #expect(sealed[4] == 2)
        #expect(try SealedFile.open(sealed, group: friendGroup).bundle == [1, 2, 3])
        #expect(throws: BundleError.unknownEpoch(1, newest: 0)) { _ = try SealedFile.open(sealed, group: phoneGroup) }
        // What the phone still seals under epoch 0 opens, but its sender is refused.
        let fromPhone = try phone.sealedBundle([], group: phoneGroup)
        #expect(throws: BundleError.senderNotAdmitted(sender: phone.author, removed: true)) {
            _ = try Bundle.openAdmitted(fromPhone, group: friendGroup)
        }
    }

    @Test func handshakesAdmitMembersOnOldKeysButNotTheRemovedDeviceOrAStranger() throws {
        try organizer.replica.removeMember(phone.author.hex, newSecret: Self.newSecret)
        // The friend has not heard of the rekey yet: it still proves epoch 0, and the new
        // secret was sealed to it, so the organizer lets it in (it learns epoch 1 in the sync).
        #expect(try connect(friend, try friend.replica.group()!, to: organizer) == nil)
        #expect(try connect(phone, try phone.replica.group()!, to: organizer) == .notAdmitted(peer: phone.author, removed: true))
        // Someone who kept the epoch-0 secret and signs with a fresh key.
        let stranger = try Peer("stranger", keySeed: 94, group: group)
        #expect(try connect(stranger, group, to: organizer) == .notAdmitted(peer: stranger.author, removed: false))
        // Once the friend holds epoch 1 it dials with it.
        try friend.replica.ingest(organizer.replica.delta(above: VersionVector()))
        #expect(try connect(friend, try friend.replica.group()!, to: organizer) == nil)
        // The organizer dialing the removed phone refuses it too.
        #expect(try connect(organizer, try organizer.replica.group()!, to: phone) != nil)
    }

    /// A rekeyed dialer reaches a member the rekey has not reached yet by dialing with the older
    /// epoch (which that member proves), and still refuses the removed device and a stranger
    /// with the old secret there: the listener must be a recipient of the newest.
    @Test func aRekeyedDialerFallsBackToTheOlderEpochForMembersOnly() throws {
        try organizer.replica.removeMember(phone.author.hex, newSecret: Self.newSecret)
        let organizerGroup = try #require(try organizer.replica.group())
        #expect(organizerGroup.epochBefore(1) == 0 && organizerGroup.epochBefore(0) == nil)
        #expect(try connect(organizer, organizerGroup, to: friend) == .notAGroupMember, "the friend holds only epoch 0")
        #expect(try connect(organizer, organizerGroup, to: friend, dialEpoch: 0) == nil)
        #expect(try connect(organizer, organizerGroup, to: phone, dialEpoch: 0) == .notAdmitted(peer: phone.author, removed: true))
        let stranger = try Peer("stranger", keySeed: 95, group: group)
        #expect(try connect(organizer, organizerGroup, to: stranger, dialEpoch: 0) == .notAdmitted(peer: stranger.author, removed: false))
    }

    /// The organizer's rekey op (and its removal op) ends a segment wherever its log travels, so
    /// every member keeps its signature; then a member that is not the organizer writes the rekey bundle for a
    /// folder the organizer never syncs, and a member on the old epoch learns the new key there.
    @Test func aMemberWritesTheRekeyBundleWhenTheOrganizerDoesNotSyncTheFolder() throws {
        let shared = SharedDirectory()
        for peer in [phone, friend, phone, friend] { try peer.sync(shared) }
        let laptop = try Peer("laptop", kind: .laptop, keySeed: 96, start: baseTime + 3_000, group: nil)
        try laptop.replica.joinInvited(by: organizer.replica)
        for peer in [laptop, friend, laptop] { try peer.sync(shared) }
        try organizer.replica.ingest(friend.replica.delta(above: VersionVector()))
        try organizer.replica.removeMember(phone.author.hex, newSecret: Self.newSecret)
        try organizer.replica.addPlayer(name: "After")
        let segments = try organizer.replica.delta(above: VersionVector()).filter { $0.author == organizer.author }
        #expect(segments.count == 3, "the organizer's log ends a segment at its removal op and at its rekey op")
        try friend.replica.ingest(organizer.replica.delta(above: VersionVector()))
        try friend.sync(shared)
        let report = try laptop.sync(shared)
        #expect(report.rejected == [], "\(report.rejected)")
        #expect(try laptop.replica.group()!.epoch == 1)
        #expect(try laptop.replica.players().map(\.displayName).contains("After"))
    }

    /// A folder member that never read the organizer's vector before the rekey (it was offline)
    /// finds only vectors sealed under the new epoch: it still reads the organizer's bundles, the
    /// rekey bundle among them, and catches up (the simulator's soak, seed 2902).
    @Test func aMemberThatNeverSawTheOrganizersVectorBeforeTheRekeyStillCatchesUp() throws {
        let shared = SharedDirectory()
        let laptop = try Peer("laptop", kind: .laptop, keySeed: 97, start: baseTime + 3_000, group: nil)
        try laptop.replica.joinInvited(by: organizer.replica)
        try laptop.sync(shared)
        // The organizer hears of the laptop (directly), and first syncs the folder after its rekey.
        try organizer.replica.ingest(laptop.replica.delta(above: VersionVector()))
        try organizer.replica.removeMember(phone.author.hex, newSecret: Self.newSecret)
        try organizer.replica.addPlayer(name: "After")
        try organizer.sync(shared)
        let report = try laptop.sync(shared)
        #expect(try laptop.replica.group()!.epoch == 1, "\(report.rejected)")
        try laptop.sync(shared)
        #expect(try laptop.replica.players().map(\.displayName).contains("After"))
        #expect(try laptop.replica.digest() == organizer.replica.digest())
    }

    @Test func folderMembersLearnTheNewKeyFromTheOrganizersRekeyBundle() throws {
        let shared = SharedDirectory()
        for peer in [organizer, phone, friend, organizer, phone, friend] { try peer.sync(shared) }
        try organizer.replica.removeMember(phone.author.hex, newSecret: Self.newSecret)
        try organizer.replica.addPlayer(name: "After")
        try organizer.sync(shared)
        let report = try friend.sync(shared)
        #expect(report.rejected == [], "\(report.rejected)")
        #expect(try friend.replica.group()!.epoch == 1)
        #expect(try friend.replica.players().map(\.displayName).contains("After"))
        // The phone reads only the rekey bundle (sealed under epoch 0), which ends before "After".
        let phoneReport = try phone.sync(shared)
        #expect(try !phone.replica.players().map(\.displayName).contains("After"))
        #expect(phoneReport.rejected.allSatisfy { $0.reason.contains("newer than this replica holds") }, "\(phoneReport.rejected)")
        #expect(throws: ReplicaError.removedFromGroup(through: try phone.replica.versionVector()[phone.author])) {
            try phone.replica.addPlayer(name: "Mallory")
        }
    }

    /// A member that continues under a new key (`device continue`) opens every epoch sealed to
    /// its old key, a rekey written before the organizer knew of the new key included; once the
    /// organizer knows, the new key is a recipient (admitted under an older epoch) and the next
    /// rekey is sealed to it. A successor of the removed device is removed with it.
    @Test func aSuccessorKeepsItsPredecessorsEpochsAndASuccessorOfTheRemovedDeviceGetsNothing() throws {
        // The phone, not knowing yet, continues as a lost phone's thief would.
        let phoneSuccessor = try phone.replica.continueUnderNewKey(seededKeys(98))
        try organizer.replica.removeMember(phone.author.hex, newSecret: Self.newSecret)  // sealed to the friend's old key
        let successor = try friend.replica.continueUnderNewKey(seededKeys(97))
        #expect(try successor.group()!.epoch == 0)
        try successor.ingest(organizer.replica.delta(above: VersionVector()))
        let opened = try #require(try successor.group())
        #expect(opened.epoch == 1 && opened.secret == Self.newSecret && opened.secrets[0] == group.secret)
        #expect(try connect(successor, opened, to: organizer.replica) == nil)
        // Under the older epoch on the lineage it shows, before the organizer knows the succession.
        #expect(try connect(successor, opened, to: organizer.replica, dialEpoch: 0) == nil)
        try organizer.replica.ingest(successor.delta(above: VersionVector()))
        try organizer.replica.ingest(phoneSuccessor.delta(above: VersionVector()))
        let organizerGroup = try #require(try organizer.replica.group())
        #expect(organizerGroup.recipients == [organizer.author, friend.author, successor.author])
        #expect(organizerGroup.removed == [phone.author, phoneSuccessor.author])
        #expect(try connect(successor, opened, to: organizer.replica, dialEpoch: 0) == nil)
        #expect(try connect(organizer.replica, organizerGroup, to: successor, dialEpoch: 0) == nil)

        // The next rekey is sealed to the successor, never to the removed phone's successor.
        let secret2 = [UInt8](repeating: 0x53, count: 32)
        #expect(try organizer.replica.rekeyGroup(newSecret: secret2) == (epoch: 2, recipients: 3))
        try successor.ingest(organizer.replica.delta(above: VersionVector()))
        #expect(try successor.group()!.epoch == 2 && successor.group()!.secret == secret2)
        try phoneSuccessor.ingest(organizer.replica.delta(above: VersionVector()))
        let phoneGroup = try #require(try phoneSuccessor.group())
        #expect(phoneGroup.epoch == 0)
        #expect(
            try connect(phoneSuccessor, phoneGroup, to: organizer.replica) == .notAdmitted(peer: phoneSuccessor.author, removed: true))
        // Once it knows, it writes nothing and cannot continue again.
        let through = try #require(try organizer.replica.removedMembers()[phone.author])
        #expect(throws: ReplicaError.removedFromGroup(through: through)) { try phoneSuccessor.addPlayer(name: "Mallory") }
        #expect(throws: ReplicaError.removedFromGroup(through: through)) { _ = try phone.replica.continueUnderNewKey(seededKeys(99)) }
    }

    /// docs/simulation.md, seed 13: a device continues under a new key before the rekey reaches
    /// it, so it holds only the older epoch, and a member holding the rekey has not received the
    /// succession op. The handshake's lineage admits it, as dialer and as listener; a lineage
    /// that does not verify proves nothing, and one that leads to the removed device is refused.
    @Test func aSuccessorNobodyHasHeardOfYetShowsItsLineageInTheHandshake() throws {
        let phoneSuccessor = try phone.replica.continueUnderNewKey(seededKeys(98))
        try organizer.replica.removeMember(phone.author.hex, newSecret: Self.newSecret)
        let successor = try friend.replica.continueUnderNewKey(seededKeys(97))
        let held = try #require(try successor.group())
        #expect(held.epoch == 0 && held.lineage.map(\.predecessor) == [friend.author])
        let organizerGroup = try #require(try organizer.replica.group())
        #expect(organizerGroup.epoch == 1 && !organizerGroup.recipients.contains(successor.author))

        #expect(try connect(successor, held, to: organizer.replica) == nil)
        #expect(try connect(organizer.replica, organizerGroup, to: successor, dialEpoch: 0) == nil)
        // The sync that follows brings the succession op, and the member no longer needs the lineage.
        try organizer.replica.ingest(successor.delta(above: VersionVector()))
        #expect(try organizer.replica.group()!.recipients.contains(successor.author))

        // The rule itself: a forged signature, or one over another successor, proves nothing.
        let proof = held.lineage[0]
        let forged = SuccessionProof(predecessor: friend.author, signature: phone.replica.signature(of: [1]))
        #expect(organizerGroup.admits(successor.author, epoch: 0, lineage: [proof]))
        #expect(!organizerGroup.admits(successor.author, epoch: 0, lineage: [forged]))
        #expect(!organizerGroup.admits(phoneSuccessor.author, epoch: 0, lineage: [proof]))
        #expect(!organizerGroup.admits(successor.author, epoch: 0))

        // The removed phone's successor shows its lineage and is refused as removed.
        let phoneGroup = try #require(try phoneSuccessor.group())
        #expect(phoneGroup.lineage.map(\.predecessor) == [phone.author])
        #expect(
            try connect(phoneSuccessor, phoneGroup, to: organizer.replica) == .notAdmitted(peer: phoneSuccessor.author, removed: true))
        #expect(organizerGroup.isRemoved(phoneSuccessor.author, lineage: phoneGroup.lineage))
    }

    /// A device continued twice shows both successions, nearest first; a member that knows
    /// neither follows the chain to the device the epoch was sealed to.
    @Test func aChainOfSuccessionsIsFollowedToTheRecipient() throws {
        try organizer.replica.rekeyGroup(newSecret: Self.newSecret)
        let second = try friend.replica.continueUnderNewKey(seededKeys(97)).continueUnderNewKey(seededKeys(96))
        let held = try #require(try second.group())
        #expect(held.epoch == 0 && held.lineage.count == 2 && held.lineage[1].predecessor == friend.author)
        #expect(try connect(second, held, to: organizer.replica) == nil)
        #expect(try !organizer.replica.group()!.admits(second.author, epoch: 0, lineage: [held.lineage[1]]))
    }
}
