import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerTestSupport
import Testing

@testable import HyzerKit
@testable import HyzerSync

/// What a device advertises on the LAN, and who recognises it (docs/discovery.md).
@Suite struct DiscoveryRecordTests {
    let nonce: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]

    @Test func aRecordReadsBackAndCarriesOnlyVersionNonceTagAndFlags() throws {
        let record = DiscoveryRecord(group: testGroup, nonce: nonce, discovers: true)
        let txt = try #require(ServiceTXT(wire: record.txt.wire))
        #expect(Set(txt.entries.keys) == ["v", "n", "r", "g", "d"])
        #expect(txt["v"] == "1" && txt["n"] == "0102030405060708" && txt["r"] == "0" && txt["d"] == "1")
        #expect(DiscoveryRecord(txt) == record)
        #expect(record.tag.count == 8 && record.joinTags.isEmpty)
    }

    @Test func membersOfTheGroupRecogniseTheTagAndNobodyElse() {
        let record = DiscoveryRecord(group: testGroup, nonce: nonce, discovers: false)
        #expect(record.isTagged(for: testGroup))
        #expect(!record.isTagged(for: otherGroup))
        // Another nonce, another tag: two services of one group cannot be linked by their records.
        let other = DiscoveryRecord(group: testGroup, nonce: [8, 7, 6, 5, 4, 3, 2, 1], discovers: false)
        #expect(other.tag != record.tag && other.isTagged(for: testGroup))
    }

    @Test func theTagChangesWithTheEpochSoARemovedDeviceStopsRecognisingIt() {
        let old = [UInt8](repeating: 0x42, count: 32)
        let new = [UInt8](repeating: 0x99, count: 32)
        let stayed = GroupMembership(id: testGroup.id, secrets: [0: old, 1: new], recipients: [], removed: [], lineage: [])
        let removed = GroupMembership(id: testGroup.id, secret: old, epoch: 0)
        let advertised = DiscoveryRecord(group: stayed, nonce: nonce, discovers: false)
        #expect(advertised.tag != DiscoveryRecord(group: removed, nonce: nonce, discovers: false).tag)
        #expect(!advertised.isTagged(for: removed), "the removed device holds only the old epoch's secret")
        #expect(advertised.isTagged(for: stayed))
        // A member still on the old epoch is recognised by one that holds both, and dialed.
        #expect(DiscoveryRecord(group: removed, nonce: nonce, discovers: false).isTagged(for: stayed))
    }

    @Test func eachRevisionHasItsOwnTagAndNameAndACopyCannotChangeIt() {
        let first = DiscoveryRecord(group: testGroup, nonce: nonce, discovers: false)
        let second = DiscoveryRecord(group: testGroup, nonce: nonce, revision: 1, discovers: false)
        #expect(first.tag != second.tag && first.instanceName == "hyzer-01020304-0" && second.instanceName == "hyzer-01020304-1")
        var forged = second.txt.entries
        forged["r"] = "7"
        #expect(DiscoveryRecord(ServiceTXT(forged))?.isTagged(for: testGroup) == false, "the revision is under the tag")
    }

    @Test func aJoinTagIsRecognisedByTheHolderOfItsInvitationOnly() {
        let invitation = Invitation(groupID: testGroup.id, secret: [UInt8](repeating: 7, count: 32))
        let another = Invitation(groupID: testGroup.id, secret: [UInt8](repeating: 8, count: 32))
        let record = DiscoveryRecord(group: testGroup, nonce: nonce, discovers: false, invitationKeys: [invitation.key, [1, 2, 3]])
        #expect(record.joinTags.count == 1, "a key of the wrong length is left out, never trapped on")
        let read = DiscoveryRecord(ServiceTXT(wire: record.txt.wire)!)
        #expect(read?.admits(invitation) == true)
        #expect(read?.admits(another) == false)
        #expect(!record.txt.wire.containsSubsequence(invitation.key) && !record.txt["j"]!.contains(Hex.encode(invitation.id)))
    }

    @Test func recordsOfOtherVersionsOrMalformedFieldsAreNotRead() {
        #expect(DiscoveryRecord(ServiceTXT(["v": "2", "n": "0102030405060708", "r": "0", "g": "0102030405060708"])) == nil)
        #expect(DiscoveryRecord(ServiceTXT(["v": "1", "n": "01020304050607", "r": "0", "g": "0102030405060708"])) == nil)
        #expect(DiscoveryRecord(ServiceTXT(["v": "1", "n": "zz02030405060708", "r": "0", "g": "0102030405060708"])) == nil)
        #expect(DiscoveryRecord(ServiceTXT(["v": "1", "n": "0102030405060708", "g": "0102030405060708"])) == nil, "no revision")
        #expect(DiscoveryRecord(ServiceTXT(["v": "1", "n": "0102030405060708", "r": "99999999999", "g": "0102030405060708"])) == nil)
        let odd = DiscoveryRecord(
            ServiceTXT([
                "v": "1", "n": "0102030405060708", "r": "0", "g": "0102030405060708", "j": ",,xx,\(String(repeating: "ab", count: 8))",
            ]))
        #expect(odd?.joinTags.count == 1)
    }

    @Test func hostileTXTRecordsAreRefusedOrSkippedWithoutTrapping() {
        #expect(ServiceTXT(wire: [UInt8](repeating: 1, count: ServiceTXT.bytesMax + 1)) == nil, "too long")
        #expect(ServiceTXT(wire: [9, 0x61, 0x3D]) == nil, "ends inside an entry")
        #expect(ServiceTXT(wire: [UInt8](repeating: 0, count: ServiceTXT.entriesMax + 1)) == nil, "too many entries")
        let skipped = ServiceTXT(wire: [3, 0x61, 0x3D, 0xFF, 1, 0x61, 3, 0x3D, 0x62, 0x63, 3, 0x41, 0x3D, 0x31, 3, 0x61, 0x3D, 0x32])
        #expect(skipped?.entries == ["a": "1"], "non-ASCII, no '=', an empty key are skipped; the first of a key counts")
        var random = SplitMix64(seed: 51)
        for _ in 0..<2_000 {
            // Short records whose length bytes are mostly small, so that many parse into entries.
            let wire = random.bytes(random.below(600)).map { random.chance(70) ? $0 % 12 : $0 }
            if let txt = ServiceTXT(wire: wire) { _ = DiscoveryRecord(txt) }
        }
    }

    @Test func theTableKeepsAtMostItsBoundAndOnlyWhatItWants() {
        let table = DiscoveredServices(servicesMax: 256) { $0.txt["keep"] == "1" }
        for index in 0..<5_000 {
            table.found(
                DiscoveredService(
                    name: "flood-\(index)", address: PeerAddress(host: "10.0.0.1", port: index), txt: ServiceTXT(["keep": "1"])))
            table.found(
                DiscoveredService(name: "other-\(index)", address: PeerAddress(host: "10.0.0.2", port: index), txt: ServiceTXT([:])))
        }
        #expect(table.all.count == 256)
        table.lost("flood-0")
        #expect(
            table.found(DiscoveredService(name: "late", address: PeerAddress(host: "10.0.0.3", port: 1), txt: ServiceTXT(["keep": "1"]))))
        #expect(!DiscoveredService.isValidName(String(repeating: "x", count: 64)) && !DiscoveredService.isValidName("a\u{7}b"))
        #expect(!DiscoveredService.isValidName("") && DiscoveredService.isValidName("hyzer-0a1b2c3d"))
    }
}

extension [UInt8] {
    fileprivate func containsSubsequence(_ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= count else { return false }
        return (0...(count - needle.count)).contains { Array(self[$0..<($0 + needle.count)]) == needle }
    }
}
