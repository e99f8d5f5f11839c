import FuzzDriver
import FuzzSupport
import HyzerKit
import HyzerSync

/// A TXT record as any device on the LAN may advertise it (docs/discovery.md, "Bounds"): read
/// as a `ServiceTXT`, then as a `DiscoveryRecord`, checked against the fixture group and
/// invitation as `serve --discover` and a joining device check it. What we write of what we
/// read reads back the same.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzDriver.bytes(data, size)
    guard let txt = ServiceTXT(wire: bytes) else { return 0 }
    FuzzFixtures.require(txt.entries.count <= ServiceTXT.entriesMax, "a record read holds at most entriesMax entries")
    FuzzFixtures.require(ServiceTXT(wire: txt.wire) == txt, "a record read writes back as itself")
    guard let record = DiscoveryRecord(txt) else { return 0 }
    _ = record.isTagged(for: FuzzFixtures.group)
    _ = record.admits(FuzzFixtures.invitation)
    _ = record.instanceName
    FuzzFixtures.require(record.joinTags.count <= DiscoveryRecord.joinTagsMax, "at most joinTagsMax join tags are read")
    FuzzFixtures.require(DiscoveryRecord(record.txt) == record, "a discovery record reads back as itself")
    return 0
}

FuzzDriver.run(fuzz)
