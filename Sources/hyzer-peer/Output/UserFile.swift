import Foundation
import HyzerKit
import HyzerSync

/// A file the user named on the command line (`export --out`, `export --udisc`, `import`),
/// handled the way shared-folder files are (docs/folder-sync.md): written as a private temporary
/// file, flushed and renamed into place; read only when it is a regular file within the size
/// bound, checked before a byte is read; no link followed either way.
enum UserFile {
    static func write(_ path: String, _ bytes: [UInt8]) throws {
        let file = URL(fileURLWithPath: path)
        do {
            try DirectoryFolder(root: file.deletingLastPathComponent()).writeAtomically(file.lastPathComponent, bytes)
        } catch {
            throw ReplicaError.storage(detail: "cannot write \(path): \(error)")
        }
    }

    /// The file's bytes, or an error naming the file and why (a link, a directory, over `maximumBytes`).
    static func read(_ path: String, maximumBytes: Int) throws -> [UInt8] {
        let file = URL(fileURLWithPath: path)
        do {
            return try DirectoryFolder(root: file.deletingLastPathComponent()).read(file.lastPathComponent, maximumBytes: maximumBytes)
        } catch let error as FolderError {
            throw CommandLineError.unreadableFile(path: path, reason: error.reason)
        }
    }
}
