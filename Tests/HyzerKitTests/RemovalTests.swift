import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit
import HyzerTestSupport
import Testing

/// docs/security.md, "Removing a member": the organizer's removal makes every replica ignore the
/// removed device's ops above the cut the removal records, whatever the order of arrival.
@Suite struct RemovalTests {
    /// An organizer, a phone and two observers, all in the organizer's group.
    struct Group {
        let organizer: TestReplica
        let phone: TestReplica
        let observers: [TestReplica]

        init() throws {
            organizer = try TestReplica("organizer", owner: "Olga", keySeed: 81)
            phone = try TestReplica("phone", owner: "Pat", keySeed: 82, start: baseTime + 1_000)
            observers = try [83, 84, 85].map { try TestReplica("observer-\($0)", keySeed: UInt8($0), start: baseTime + 2_000) }
            let group = GroupMembership(
                id: GroupMembership.groupID(organizer: organizer.author), secret: [UInt8](repeating: 7, count: 32))
            try organizer.replica.join(group)
            // Members are admitted with an invitation (docs/security.md, "Membership").
            for member in [phone] + observers { try member.replica.joinInvited(by: organizer.replica) }
        }
    }

    @Test func aRemovedDevicesLaterOpsCountNowhereWhateverTheArrivalOrder() throws {
        let group = try Group()
        let (organizer, phone) = (group.organizer, group.phone)
        try organizer.replica.pull(from: phone.replica)
        let before = try phone.replica.versionVector()[phone.author]
        let removal = try organizer.replica.removeMember(phone.author.hex, newSecret: [UInt8](repeating: 8, count: 32))
        #expect(removal.through == before)
        // The phone, not knowing yet, writes on: a player and a course name (a register).
        try phone.replica.addPlayer(name: "Mallory")
        try phone.replica.renameCourse("Morley Field", to: "Stolen Field")

        let phoneLog = try phone.replica.delta(above: VersionVector())
        let organizerLog = try organizer.replica.delta(above: VersionVector())
        let (first, second, third) = (group.observers[0], group.observers[1], group.observers[2])
        let late = try first.replica.ingest(phoneLog)
        #expect(late.rejected.isEmpty, "the removal has not arrived: the phone's ops count for now")
        #expect(try first.replica.players().map(\.displayName).contains("Mallory"))
        try first.replica.ingest(organizerLog)
        let early = try second.replica.ingest(organizerLog + phoneLog)
        #expect(early.rejected == [.removedMember(author: phone.author, through: before)])
        try third.replica.ingest(phoneLog.reversed() + organizerLog.reversed())

        // Everyone also takes the observers' own logs, and the organizer the phone's late ops.
        let observerLogs = try group.observers.flatMap { try $0.replica.delta(above: VersionVector()) }
        for replica in group.observers.map(\.replica) + [organizer.replica] { try replica.ingest(observerLogs) }
        try organizer.replica.ingest(phoneLog)
        let expected = try snapshot(first.replica)
        for replica in [second.replica, third.replica, organizer.replica] { #expect(try snapshot(replica) == expected) }
        let players = try first.replica.players().map(\.displayName)
        #expect(players.contains("Pat"), "ops before the removal still count")
        #expect(!players.contains("Mallory"))
        #expect(try first.replica.courses().map(\.name).contains("Morley Field"))
        #expect(try first.replica.removedMembers() == [phone.author: before])
        #expect(try first.replica.verify().isIntact, "the views equal a rebuild from the log")
    }

    /// Ops views read from the log itself (aliases, receipts, imported dates, invitations) follow
    /// the same rule: the removed device's alias after the removal counts nowhere.
    @Test func anAliasWrittenAfterTheRemovalCountsNowhere() throws {
        let group = try Group()
        let (organizer, phone, observer) = (group.organizer, group.phone, group.observers[0])
        try phone.replica.addAlias(player: "Pat", alias: "Patty")
        try organizer.replica.pull(from: phone.replica)
        try organizer.replica.removeMember(phone.author.hex, newSecret: [UInt8](repeating: 8, count: 32))
        try phone.replica.addAlias(player: "Pat", alias: "Boss")
        try observer.replica.ingest(try organizer.replica.delta(above: VersionVector()) + phone.replica.delta(above: VersionVector()))
        #expect(try observer.replica.aliases().values.flatMap { $0 } == ["Patty"], "the alias before the removal counts, not the one after")
    }

    @Test func theRemovedDeviceRefusesToWriteOnceItLearns() throws {
        let group = try Group()
        try group.organizer.replica.pull(from: group.phone.replica)
        let removal = try group.organizer.replica.removeMember("phone", newSecret: [UInt8](repeating: 8, count: 32))
        try group.phone.replica.pull(from: group.organizer.replica)
        let fingerprint = try Fingerprint(group.phone.replica)
        #expect(throws: ReplicaError.removedFromGroup(through: removal.through)) { try group.phone.replica.addPlayer(name: "Mallory") }
        #expect(try Fingerprint(group.phone.replica) == fingerprint)
    }

    @Test func onlyTheOrganizersRemovalCounts() throws {
        let group = try Group()
        let observer = group.observers[0]
        try observer.replica.pull(from: group.phone.replica)
        #expect(throws: ReplicaError.notGroupOrganizer) {
            try observer.replica.removeMember(group.phone.author.hex, newSecret: [UInt8](repeating: 8, count: 32))
        }
        // A member that signs a removal anyway, bypassing the command: it changes nothing.
        try appendRaw(
            .memberRemoved(device: group.phone.author, through: 0), to: observer,
            clock: HLCTimestamp(physicalMilliseconds: baseTime + 5_000, counter: 0))
        try group.phone.replica.addPlayer(name: "Still Here")
        try observer.replica.pull(from: group.phone.replica)
        #expect(try observer.replica.removedMembers().isEmpty)
        #expect(try observer.replica.players().map(\.displayName).contains("Still Here"))
        #expect(throws: GroupError.organizerCannotRemoveItself) {
            try group.organizer.replica.removeMember(group.organizer.author.hex, newSecret: [UInt8](repeating: 8, count: 32))
        }
    }
}
