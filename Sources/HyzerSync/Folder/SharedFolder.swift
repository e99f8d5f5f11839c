/// One entry of a shared-folder listing.
public struct FolderEntry: Hashable, Sendable {
    /// What a name in a folder is. `other` (a symbolic link, FIFO, socket or device) is never
    /// opened, followed or written through.
    public enum Kind: Hashable, Sendable {
        /// A regular file.
        case file
        /// A directory.
        case directory
        /// Anything else: never opened, followed or written through.
        case other
    }

    /// The entry's name in its directory.
    public let name: String
    /// Whether it is a file, a directory or something else.
    public let kind: Kind
    /// Its size in bytes.
    public let size: UInt64
    /// Modification time in nanoseconds; with the size, what tells a changed file from an unchanged one.
    public let modified: UInt64

    /// An entry from its parts.
    public init(name: String, kind: Kind, size: UInt64, modified: UInt64) {
        self.name = name
        self.kind = kind
        self.size = size
        self.modified = modified
    }

    /// An entry that is a directory or a regular file.
    public init(name: String, isDirectory: Bool, size: UInt64, modified: UInt64) {
        self.init(name: name, kind: isDirectory ? .directory : .file, size: size, modified: modified)
    }

    /// Whether the entry is a directory.
    public var isDirectory: Bool { kind == .directory }
}

/// A folder that several replicas see: a real directory (a Syncthing or Dropbox folder, an
/// NFS mount, a USB stick) or the simulator's. Paths are relative to the folder's root and
/// use `/`.
public protocol SharedFolder: Sendable {
    /// A name for messages and for this replica's bookkeeping of what it read.
    var identity: String { get }
    /// The entries of a directory; `[]` when it does not exist.
    func list(_ directory: String) throws -> [FolderEntry]
    /// The bytes of the regular file at `path`; a refusal, before anything is read, when it is
    /// larger than `maximumBytes` (see `FolderError.tooLarge`).
    func read(_ path: String, maximumBytes: Int) throws -> [UInt8]
    /// Writes `bytes` under a temporary name, flushes them to stable storage, and renames
    /// the file into place, so readers see the whole file or nothing.
    func writeAtomically(_ path: String, _ bytes: [UInt8]) throws
    /// Removes the file at `path`; nothing when it does not exist.
    func remove(_ path: String) throws
    /// Creates the directory at `path` and every missing one above it; nothing when it exists.
    func makeDirectory(_ path: String) throws
    /// Every entry at or below `directory` in one listing, where the storage lists a whole
    /// subtree at once for less than a listing per directory (a bucket: one request for
    /// 1,000 objects); `nil` where it does not (a real directory), and then each directory is
    /// listed on its own. Entries are as `list(_:)` gives them.
    func listTree(_ directory: String) throws -> FolderTree?
}

extension SharedFolder {
    /// `nil`: each directory is listed on its own.
    public func listTree(_ directory: String) throws -> FolderTree? { nil }
}

/// The entries of every directory at or below one directory, from one listing
/// (`SharedFolder.listTree(_:)`): what a folder sync reads instead of listing each directory.
public struct FolderTree: Sendable {
    /// The directory listed, relative to the folder's root.
    public let root: String
    private var directories: [String: [FolderEntry]] = [:]

    /// The tree of `files` (paths relative to the folder's root, each below `root`), with the
    /// directories their paths imply. A path with an empty, `.` or `..` component is no path of
    /// a folder: it is left out.
    public init(root: String, files: [(path: String, size: UInt64, modified: UInt64)]) {
        self.root = root
        var seen: Set<String> = []
        for file in files {
            guard file.path.hasPrefix(root + "/") else { continue }
            let parts = file.path.dropFirst(root.count + 1).split(separator: "/", omittingEmptySubsequences: false)
            guard parts.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }) else { continue }
            var directory = root
            for part in parts.dropLast() {
                let path = directory + "/" + part
                if seen.insert(path).inserted {
                    directories[directory, default: []].append(FolderEntry(name: String(part), kind: .directory, size: 0, modified: 0))
                }
                directory = path
            }
            directories[directory, default: []].append(
                FolderEntry(name: String(parts.last!), kind: .file, size: file.size, modified: file.modified))
        }
        for key in directories.keys { directories[key]?.sort { $0.name < $1.name } }
    }

    /// The entries of `directory`, sorted by name: `nil` when it is not at or below `root`, `[]`
    /// when nothing lies in it.
    public func entries(of directory: String) -> [FolderEntry]? {
        guard directory == root || directory.hasPrefix(root + "/") else { return nil }
        return directories[directory] ?? []
    }
}

/// A shared-folder operation that failed, with the path and the system's reason.
public struct FolderError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The path, relative to the folder's root.
    public let path: String
    /// What failed, as the system or the check says it.
    public let reason: String

    /// A failure at `path` for `reason`.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    /// `PATH: REASON`.
    public var description: String { "\(path): \(reason)" }

    /// The refusal of a file larger than what its kind may be: it is not read at all.
    public static func tooLarge(path: String, size: UInt64, limit: Int) -> FolderError {
        FolderError(path: path, reason: "\(size) bytes, over the limit of \(limit) bytes for this kind of file; it is not read")
    }
}
