import HyzerDomain
import HyzerKit

/// Where things live in a shared folder:
/// `hyzer/<group id>/<author id>/<content hash>.hzb` for bundles and
/// `hyzer/<group id>/<author id>/vector.hzv` for an author's published version vector.
/// Each replica writes only into its own directory.
enum FolderLayout {
    static let vectorFileName = "vector.hzv"
    static let bundleExtension = ".hzb"
    /// The largest bundle read or written: about 970,000 score events at 69 bytes each. A file
    /// named like a bundle that is larger is refused by its size, before any byte is read.
    static let maximumBundleBytes = 64 << 20
    /// The largest vector file read: about 25,000 authors.
    static let maximumVectorBytes = 1 << 20

    static func groupDirectory(_ group: GroupMembership) -> String {
        "hyzer/\(group.id.lowercased)"
    }

    static func memberDirectory(_ group: GroupMembership, _ author: AuthorID) -> String {
        groupDirectory(group) + "/" + author.hex
    }

    /// Whether `name` is a bundle's name: 64 lowercase hex digits and the extension. Anything
    /// else (`*.tmp`, `.syncthing.*`, `*.sync-conflict-*`, …) is not ours to read.
    static func isBundleName(_ name: String) -> Bool {
        guard name.hasSuffix(bundleExtension) else { return false }
        let stem = name.dropLast(bundleExtension.count)
        return stem.count == 64 && stem.allSatisfy { $0.isHexDigit && !$0.isUppercase }
    }

    static func bundleName(contentHash: [UInt8]) -> String {
        Hex.encode(contentHash) + bundleExtension
    }
}
