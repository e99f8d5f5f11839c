import Foundation
import HyzerTestSupport
import Testing

/// `group members` lists exactly the devices the next rekey is sealed to, and the removed ones
/// (docs/cli.md, docs/security.md "Membership").
@Suite struct GroupMembersCLITests {
    let directory = TemporaryDirectory("group-members")
    var folder: String { directory.path("shared").path }

    func replicaID(_ cli: BinaryRunner) throws -> String {
        let whoami = try JSONSerialization.jsonObject(with: Data(try cli.ok("whoami", "--json").utf8)) as? [String: Any]
        return try #require(whoami?["replica"] as? String)
    }

    @Test func membersAreTheOrganizerAndTheInvitedDevicesAndARemovalShows() throws {
        let laptop = try BinaryRunner.phone("laptop", owner: "Olga", in: directory)
        let phone = try BinaryRunner.phone("phone", owner: "Pat", in: directory)
        try laptop.ok("group", "create")
        try phone.join(laptop)
        let invited = try JSONSerialization.jsonObject(with: Data(try laptop.ok("group", "members", "--json").utf8)) as? [[String: Any]]
        let entries = try #require(invited)
        #expect(entries.count == 2)
        let phoneEntry = try #require(entries.first { $0["id"] as? String == (try? replicaID(phone)) })
        #expect(phoneEntry["name"] == nil, "admitted, not heard from yet")
        #expect(phoneEntry["lastSequence"] as? Int == 0)
        #expect(phoneEntry["removed"] as? Bool == false)
        #expect(entries.first { $0["organizer"] as? Bool == true }?["isThisReplica"] as? Bool == true)

        for cli in [phone, laptop] { try cli.ok("sync", "--folder", folder, quiet: false) }
        let table = try laptop.ok("group", "members")
        #expect(table.contains("phone") && table.contains("Pat") && table.contains("organizer"), "\(table)")
        try laptop.ok("group", "remove", "phone")
        let after = try laptop.ok("group", "members")
        #expect(after.split(separator: "\n").contains { $0.hasPrefix("phone") && $0.hasSuffix("removed") }, "\(after)")
        #expect(try laptop.ok("device", "list").contains("phone"), "device list still works")
    }
}
