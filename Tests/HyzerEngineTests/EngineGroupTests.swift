import Foundation
import HyzerDomain
import HyzerKit
import HyzerTestSupport
import Testing

@testable import HyzerEngine

/// The group through the façade: an invitation whose secret the engine draws, accepted by the
/// join path every device uses, and the members it then lists.
@Suite struct EngineGroupTests {
    let directory = TemporaryDirectory("engine-group")

    @Test func anInvitationAdmitsADeviceThroughTheJoinPath() async throws {
        let engine = try await HyzerEngine.create(at: directory.path("organizer"), deviceName: "phone", owner: "Ann")
        await #expect(throws: GroupError.noGroup(.invite)) { try await engine.invite() }
        let group = try await engine.createGroup()
        await #expect(throws: EngineError.alreadyInGroup) { try await engine.createGroup() }
        #expect(try await engine.group() == group)
        let token = try await engine.invite(uses: 1, expires: .seconds(3_600))
        #expect(try await engine.invite() != token, "each invitation draws its own secret")

        let joiner = try Replica.create(at: directory.path("watch"), name: "watch", kind: .watch)
        let member = try Replica.open(at: engine.directory)
        try joiner.join(with: try Invitation(token: token), through: member)
        #expect(try joiner.group()?.id == group.uuid)
        // The invitation admitted one device: a second is refused.
        let other = try Replica.create(at: directory.path("laptop"), name: "laptop", kind: .laptop)
        #expect(throws: InvitationError.refused(.usedUp(uses: 1))) { try other.join(with: try Invitation(token: token), through: member) }
        try member.close()

        let members = try await engine.members()
        #expect(members.map(\.id).contains(engine.device))
        #expect(members.map(\.id).contains(joiner.author))
        #expect(members.first { $0.id == engine.device }?.isOrganizer == true)
        try await engine.close()
    }

    @Test func anInvitationLastsLongerThanZeroAndAtMostAYear() async throws {
        let engine = try await HyzerEngine.create(at: directory.path("organizer"), deviceName: "phone")
        try await engine.createGroup()
        for lifetime: Duration in [.zero, .seconds(-60), .seconds(367 * 86_400)] {
            await #expect(throws: EngineError.invitationLifetimeOutOfRange) { try await engine.invite(expires: lifetime) }
        }
        await #expect(throws: InvitationError.usesOutOfRange(uses: 0, limit: 1_000)) { try await engine.invite(uses: 0) }
        #expect(!(try await engine.invite(expires: .seconds(366 * 86_400))).isEmpty)
        try await engine.close()
    }

    @Test func anAcceptedInvitationIsKeptForTheNextSync() async throws {
        let organizer = try await HyzerEngine.create(at: directory.path("organizer"), deviceName: "phone")
        let group = try await organizer.createGroup()
        let token = try await organizer.invite()
        let watch = try await HyzerEngine.create(at: directory.path("watch"), deviceName: "watch", kind: .watch)
        #expect(try await watch.acceptInvitation(token: token) == group)
        let pending = try Replica.open(at: watch.directory)
        #expect(try pending.pendingInvitation()?.groupID == group.uuid)
        try pending.close()
        await #expect(throws: InvitationError.notAToken) { try await watch.acceptInvitation(token: "not a token") }
        try await organizer.close()
        try await watch.close()
    }
}
