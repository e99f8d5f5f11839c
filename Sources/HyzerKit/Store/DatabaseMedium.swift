import Foundation
import GRDBSQLite

/// Where a store's database file lives: the operating system's files (everything that ships),
/// or a SQLite VFS registered in this process under a name (the simulator's disk, which loses
/// what was not synced when its power is cut: docs/simulation.md, "The simulated disk"). A VFS
/// name is an ordinary SQLite option, as a path is: the store's directory, its key file and
/// every rule stay the same, and SQLite opens the database through a `file:` URI naming it.
public struct DatabaseMedium: Sendable, Hashable {
    /// The VFS's name; nil for the operating system's files.
    public let vfs: String?

    /// The operating system's files, through SQLite's default VFS.
    public static let files = DatabaseMedium(vfs: nil)

    /// The SQLite VFS registered under `name`.
    public static func vfs(_ name: String) -> DatabaseMedium { DatabaseMedium(vfs: name) }

    private init(vfs: String?) {
        self.vfs = vfs
    }

    /// What SQLite opens for the file at `url`: its path, or a URI naming the VFS.
    func location(of url: URL) -> String {
        guard let vfs else { return url.path }
        return "file:" + Self.escaped(url.path) + "?vfs=" + Self.escaped(vfs)
    }

    /// Whether the file at `url` exists (with at least one byte, as SQLite's own check says of a VFS's files).
    func exists(_ url: URL) -> Bool {
        guard let vfs else { return FileManager.default.fileExists(atPath: url.path) }
        guard let system = sqlite3_vfs_find(vfs), let access = system.pointee.xAccess else { return false }
        var result: Int32 = 0
        return access(system, url.path, SQLITE_ACCESS_EXISTS, &result) == SQLITE_OK && result != 0
    }

    /// Deletes the file at `url` if it exists.
    func remove(_ url: URL) {
        guard let vfs else {
            try? FileManager.default.removeItem(at: url)
            return
        }
        guard let system = sqlite3_vfs_find(vfs), let delete = system.pointee.xDelete else { return }
        _ = delete(system, url.path, 0)
    }

    /// `text` with the characters a URI's path or query gives a meaning to percent-encoded.
    private static func escaped(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "%"), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "&"), UInt8(ascii: "="), 0..<0x21, 0x7F...:
                result += String(format: "%%%02X", byte)
            default:
                result.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        return result
    }
}
