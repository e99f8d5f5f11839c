import HyzerDomain
import HyzerKit

/// Where things live in a shared folder (docs/folder-sync.md):
/// `hyzer/<group id>/<author id>/<content hash>.hzb` for bundles and
/// `hyzer/<group id>/<author id>/vector-<content hash>.hzv` for an author's published version
/// vector (`vector.hzv` in the first layout, still read). Each replica writes only into its own
/// directory, and every file once, under a new name.
public enum FolderLayout {
    /// The vector file's name in the first layout: read, never written.
    static let vectorFileName = "vector.hzv"
    /// The extension of a bundle file.
    public static let bundleExtension = ".hzb"
    /// How long a retired file (a replaced vector, a bundle every member holds) stays before it
    /// is removed, by this replica's wall clock: time for a sync tool to finish copying it.
    static let gracePeriodMilliseconds: UInt64 = 10 * 60_000
    /// The largest bundle read or written: about 970,000 score events at 69 bytes each. A file
    /// named like a bundle that is larger is refused by its size, before any byte is read.
    static let maximumBundleBytes = 64 << 20
    /// The largest vector file read: about 25,000 authors.
    static let maximumVectorBytes = 1 << 20
    /// The most bytes one sync reads of files that turn out to be refused (junk, forgeries,
    /// damaged copies): once refused files have cost this much, a file that would take the
    /// sum past it waits for the next sync. A file refused for its content is remembered and
    /// not read again until it changes, so each costs its bytes once.
    public static let refusedBytesPerSyncMax = maximumBundleBytes

    /// `hyzer/<group id>`: the group's directory.
    public static func groupDirectory(_ group: GroupMembership) -> String {
        "hyzer/\(group.id.lowercased)"
    }

    /// `hyzer/<group id>/<author id>`: the directory only `author` writes into.
    public static func memberDirectory(_ group: GroupMembership, _ author: AuthorID) -> String {
        groupDirectory(group) + "/" + author.hex
    }

    /// The last component of a folder path (paths use `/`).
    static func fileName(of path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path
    }

    /// Whether `name` is a bundle's name: 64 lowercase hex digits and the extension. Anything
    /// else (`*.tmp`, `.syncthing.*`, `*.sync-conflict-*`, …) is not ours to read.
    static func isBundleName(_ name: String) -> Bool {
        guard name.hasSuffix(bundleExtension) else { return false }
        let stem = name.dropLast(bundleExtension.count)
        return Hex.isLowercaseDigits(stem, count: 64)
    }

    /// `<content hash>.hzb`: a bundle's name from the BLAKE2b-256 of its sealed bytes.
    public static func bundleName(contentHash: [UInt8]) -> String {
        Hex.encode(contentHash) + bundleExtension
    }

    /// `vector-<content hash>.hzv`: a published vector's name from the hash of its sealed bytes.
    public static func vectorName(contentHash: [UInt8]) -> String {
        "vector-" + Hex.encode(contentHash) + ".hzv"
    }

    /// Whether `name` is a vector file's: `vector-<64 lowercase hex digits>.hzv`, or `vector.hzv`.
    static func isVectorName(_ name: String) -> Bool {
        guard name != vectorFileName else { return true }
        guard name.hasPrefix("vector-"), name.hasSuffix(".hzv") else { return false }
        let stem = name.dropFirst(7).dropLast(4)
        return Hex.isLowercaseDigits(stem, count: 64)
    }
}
