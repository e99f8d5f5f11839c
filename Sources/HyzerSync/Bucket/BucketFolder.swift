import Foundation
import HyzerCrypto
import NIOCore
import NIOPosix
import Synchronization

/// A shared folder over a bucket prefix (docs/bucket-sync.md): folder path `P` is the object
/// `PREFIX/P`, so `FolderSync` and `FolderJoin` run over objects as they run over files.
///
/// - A directory is a key prefix: `list(_:)` is one `ListObjectsV2` with delimiter `/`, and
///   `listTree(_:)` lists the group's whole prefix in one request per 1,000 objects, so a sync
///   that finds nothing new costs one request, however many devices the group has.
/// - Every object is written once (`If-None-Match: *`): nothing is ever overwritten. A write that
///   finds an object already there succeeds only if that object holds the same bytes (a retry
///   whose first try landed).
/// - An object's identity for "already read" is its ETag (as `FolderEntry.modified`, hashed),
///   and a read asks for the ETag listed (`If-Match`): an object replaced between list and read
///   is refused, and read again under its new identity at the next sync.
///
/// The `SharedFolder` calls block their thread until the bucket answers (the folder sync is
/// synchronous, run on the store's own thread): the requests run on async-http-client's event
/// loops and the caller waits on their futures. Called on an event loop's thread, where that wait
/// could never end, a call throws `BucketError.calledOnEventLoop` instead.
public final class BucketFolder: SharedFolder {
    /// The bucket's client: its `requestsSent` is what the syncs cost.
    public let client: BucketClient
    /// The ETag of each path in the last listing that named it.
    private let eTags = Mutex<[String: String]>([:])

    /// The folder at `client`'s location; nothing is sent until it is used.
    public init(client: BucketClient) {
        self.client = client
    }

    /// `s3://BUCKET/PREFIX`.
    public var identity: String { client.location.description }

    /// One `ListObjectsV2` of `directory`'s prefix with delimiter `/`: its objects as files,
    /// its common prefixes as directories.
    public func list(_ directory: String) throws -> [FolderEntry] {
        let prefix = try listingPrefix(directory)
        let listing = try wait { client.list(prefix: prefix, delimiter: "/") }
        remember(listing)
        var entries: [FolderEntry] = []
        for object in listing.objects {
            let name = String(object.key.dropFirst(prefix.count))
            guard !name.isEmpty, !name.contains("/") else { continue }
            entries.append(FolderEntry(name: name, kind: .file, size: object.size, modified: Self.identity(object.eTag)))
        }
        for common in listing.prefixes {
            let name = String(common.dropFirst(prefix.count).dropLast())
            guard !name.isEmpty, !name.contains("/") else { continue }
            entries.append(FolderEntry(name: name, kind: .directory, size: 0, modified: 0))
        }
        return entries.sorted { $0.name < $1.name }
    }

    /// Every object below `directory`'s prefix, in one request per 1,000 objects.
    public func listTree(_ directory: String) throws -> FolderTree? {
        let prefix = try listingPrefix(directory)
        let listing = try wait { client.list(prefix: prefix) }
        remember(listing)
        let base = client.location.prefix.isEmpty ? "" : client.location.prefix + "/"
        return FolderTree(
            root: directory,
            files: listing.objects.map { (path: String($0.key.dropFirst(base.count)), size: $0.size, modified: Self.identity($0.eTag)) })
    }

    /// The object's bytes, asked for with the ETag it was listed with; refused by its length
    /// before its body is read when it is larger than `maximumBytes`.
    public func read(_ path: String, maximumBytes: Int) throws -> [UInt8] {
        let key = try objectKey(path)
        let eTag = eTags.withLock { $0[path] }
        do {
            return try wait { client.get(key: key, maximumBytes: maximumBytes, ifMatch: eTag) }
        } catch BucketError.tooLarge {
            throw FolderError(
                path: identity + "/" + path, reason: "over the limit of \(maximumBytes) bytes for this kind of file; it is not read")
        }
    }

    /// Writes the object once (`If-None-Match: *`): an object is whole or absent, so this is atomic.
    /// Throws `FolderError` when another object is already there (it is left as it is).
    public func writeAtomically(_ path: String, _ bytes: [UInt8]) throws {
        let key = try objectKey(path)
        guard try !wait({ client.put(key: key, bytes: bytes) }) else { return }
        let existing = try? wait { client.get(key: key, maximumBytes: bytes.count) }
        guard existing != bytes else { return }
        throw FolderError(
            path: identity + "/" + path,
            reason: "an object is already there, and objects are written once (If-None-Match); it is left as it is")
    }

    /// Deletes the object; nothing when it is not there.
    public func remove(_ path: String) throws {
        let key = try objectKey(path)
        try wait { client.delete(key: key) }
    }

    /// Nothing: a bucket has no directories, only key prefixes.
    public func makeDirectory(_ path: String) throws {}

    // MARK: Keys

    /// The key of a folder path: `PREFIX/PATH`. A path with an empty, `.` or `..` component is refused.
    private func objectKey(_ path: String) throws -> String {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard !path.isEmpty, parts.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." && !$0.contains("\0") }) else {
            throw FolderError(path: identity + "/" + path, reason: "not a path inside the shared folder")
        }
        return client.location.key(path)
    }

    /// The prefix that lists `directory`'s contents: its key and `/` (the bucket's prefix alone for the root).
    private func listingPrefix(_ directory: String) throws -> String {
        guard !directory.isEmpty else { return client.location.prefix.isEmpty ? "" : client.location.prefix + "/" }
        return try objectKey(directory) + "/"
    }

    /// Keeps the ETag of every listed object, by folder path, for `read(_:maximumBytes:)`.
    private func remember(_ listing: BucketListing) {
        let base = client.location.prefix.isEmpty ? "" : client.location.prefix + "/"
        eTags.withLock { eTags in
            for object in listing.objects where object.key.hasPrefix(base) { eTags[String(object.key.dropFirst(base.count))] = object.eTag }
        }
    }

    /// An ETag as a folder entry's modification stamp: the first 8 bytes of its BLAKE2b-256, so
    /// an object replaced under the same key and size reads as changed.
    static func identity(_ eTag: String) -> UInt64 {
        Blake2b.hash256(Array(eTag.utf8)).prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// Waits for `start`'s future, refusing on an event loop's thread (where waiting would deadlock).
    private func wait<T: Sendable>(_ start: () -> EventLoopFuture<T>) throws -> T {
        guard MultiThreadedEventLoopGroup.currentEventLoop == nil else { throw BucketError.calledOnEventLoop }
        return try start().wait()
    }
}
