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

    /// Opens, authenticates and ingests a sealed bundle, then signs this device's receipts of
    /// rounds whose finish it brought (`Replica.afterIngest`). A bundle that fails a check as a
    /// whole throws `BundleError` and changes nothing; refused segments are in the report.
    public static func `import`(_ bytes: [UInt8], into replica: Replica) throws -> IngestReport {
        let report = try replica.ingest(open(bytes, group: try replica.requireGroup()).segments)
        try replica.afterIngest(finishesApplied: report.finishesApplied)
        return report
    }

    /// Opens and authenticates a sealed bundle, as `import` and folder sync do, without
    /// ingesting it: throws `BundleError` for a file `group` does not admit.
    public static func open(_ bytes: [UInt8], group: GroupMembership) throws -> Bundle {
        try Bundle.openAdmitted(bytes, group: group)
    }
}

extension Bundle {
    /// Opens a sealed file and decodes its bundle, refusing one whose sender the group does not
    /// admit under the key it was sealed with: a removed device, or someone who kept an old
    /// secret and signs with a fresh key (docs/security.md, "Re-keying").
    static func openAdmitted(_ file: [UInt8], group: GroupMembership) throws -> Bundle {
        let (plain, epoch) = try SealedFile.open(file, group: group)
        let bundle = try Bundle(decoding: plain, expectedGroup: group.id)
        guard group.admits(bundle.sender, epoch: epoch) else {
            throw BundleError.senderNotAdmitted(sender: bundle.sender, removed: group.removed.contains(bundle.sender))
        }
        return bundle
    }
}
