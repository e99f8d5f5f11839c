import Foundation
import HyzerDomain
import HyzerKit

/// One thing a folder sync remembers about a folder (docs/folder-sync.md, "What a replica
/// remembers"), kept in the store's sync records under the folder's scope. Each kind is written
/// as `KIND:NAME` (or a bare word), the keys every earlier build wrote, so a store keeps its
/// records across an upgrade; a key of no kind below is left as it is.
enum FolderRecord: Hashable, Sendable {
    /// One of our bundles, by file name: the op ranges it carries (`BundleRanges`).
    case bundle(name: String)
    /// One of our rekey bundles (`FolderSyncPass.writeRekey`), by file name: its op ranges.
    case rekeyBundle(name: String)
    /// That the rekey bundle of `epoch` was written (`[1]`).
    case rekeyWritten(epoch: UInt32)
    /// The highest vector `member` ever proved (`Bundle.write` of it).
    case member(AuthorID)
    /// A member's vector file read, by path: its fingerprint, then the vector in it.
    case vectorFile(path: String)
    /// A vector file refused or set aside, by path: its fingerprint, then the outcome
    /// (`FolderSync.refusal`).
    case refusedVectorFile(path: String)
    /// A bundle file read, refused or set aside, by path: its fingerprint, then the outcome.
    case bundleFile(path: String)
    /// A join request decided without a reply, by file name: its fingerprint, then the outcome
    /// (`FolderJoin.notARequest`, `FolderJoin.waitingForInvitation`).
    case joinRequest(name: String)
    /// One of our files retired, by name: since when (milliseconds, u64).
    case retired(name: String)
    /// The signed vector we last published.
    case publishedVector
    /// The file name we last published it under (UTF-8).
    case publishedFile

    /// The key it is kept under.
    var key: String {
        switch self {
        case .bundle(let name): "mine:" + name
        case .rekeyBundle(let name): "keys:" + name
        case .rekeyWritten(let epoch): "rekey:\(epoch)"
        case .member(let member): "member:" + member.hex
        case .vectorFile(let path): "vector:" + path
        case .refusedVectorFile(let path): "refused:" + path
        case .bundleFile(let path): "file:" + path
        case .joinRequest(let name): "join:" + name
        case .retired(let name): "retire:" + name
        case .publishedVector: "published"
        case .publishedFile: "publishedFile"
        }
    }

    /// The record kept under `key`; `nil` for a key of no kind (left untouched).
    init?(key: String) {
        switch key {
        case "published":
            self = .publishedVector
            return
        case "publishedFile":
            self = .publishedFile
            return
        default: break
        }
        guard let colon = key.firstIndex(of: ":") else { return nil }
        let name = String(key[key.index(after: colon)...])
        switch key[..<colon] {
        case "mine": self = .bundle(name: name)
        case "keys": self = .rekeyBundle(name: name)
        case "rekey":
            guard let epoch = UInt32(name), "\(epoch)" == name else { return nil }
            self = .rekeyWritten(epoch: epoch)
        case "member":
            guard let member = AuthorID(hex: name), member.hex == name else { return nil }
            self = .member(member)
        case "vector": self = .vectorFile(path: name)
        case "refused": self = .refusedVectorFile(path: name)
        case "file": self = .bundleFile(path: name)
        case "join": self = .joinRequest(name: name)
        case "retire": self = .retired(name: name)
        default: return nil
        }
    }

    /// The file name of one of our bundles, a rekey bundle or a retired file.
    var ownFile: String? {
        switch self {
        case .bundle(let name), .rekeyBundle(let name), .retired(let name): name
        default: nil
        }
    }

    /// The path of a member's file this record is about.
    var memberFilePath: String? {
        switch self {
        case .vectorFile(let path), .refusedVectorFile(let path), .bundleFile(let path): path
        default: nil
        }
    }

    /// A file's identity for "already read": its size and modification time.
    static func fingerprint(_ file: FolderEntry) -> [UInt8] {
        var writer = ByteWriter()
        writer.write(file.size)
        writer.write(file.modified)
        return writer.bytes
    }

    /// A time, as `retired` keeps it.
    static func encode(milliseconds: UInt64) -> [UInt8] {
        var writer = ByteWriter()
        writer.write(milliseconds)
        return writer.bytes
    }

    /// A time as `retired` keeps it; 0 for a value that holds none.
    static func milliseconds(_ value: [UInt8]) -> UInt64 {
        var reader = ByteReader(value)
        return (try? reader.readUInt64()) ?? 0
    }
}
