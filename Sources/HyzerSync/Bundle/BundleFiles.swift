import HyzerKit

/// Bundles as files passed by hand (`export`, `import`): sealed like folder bundles.
public enum BundleFiles {
    /// Every op the replica holds, sealed for its group.
    public static func export(_ replica: Replica) throws -> [UInt8] {
        let group = try replica.requireGroup()
        let bundle = Bundle(
            groupID: group.id, sender: replica.author, senderVector: try replica.versionVector(),
            segments: try replica.delta(above: VersionVector()))
        return seal(bundle.encoded(signedBy: replica.signature(of:)), group: group)
    }

    /// The largest file `import` reads: a sealed bundle of the largest size.
    public static var bytesMax: Int { SealedFile.bytesMax }

    /// A signed bundle sealed for `group`, as files carry it.
    public static func seal(_ signedBundle: [UInt8], group: GroupMembership) -> [UInt8] {
        SealedFile.seal(signedBundle, group: group)
    }

    /// Opens, authenticates and ingests a sealed bundle. A bundle that fails a check as a
    /// whole throws `BundleError` and changes nothing; refused segments are in the report.
    public static func `import`(_ bytes: [UInt8], into replica: Replica) throws -> IngestReport {
        let group = try replica.requireGroup()
        let bundle = try Bundle(decoding: try SealedFile.open(bytes, group: group), expectedGroup: group.id)
        return try replica.ingest(bundle.segments)
    }
}
