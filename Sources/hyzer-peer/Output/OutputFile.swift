import Foundation
import HyzerKit
import HyzerSync

/// A file the user named on the command line (`export --out`, `export --udisc`), written the way
/// shared-folder files are: a private temporary file, flushed and renamed into place, no link
/// followed (docs/folder-sync.md).
enum OutputFile {
    static func write(_ path: String, _ bytes: [UInt8]) throws {
        let file = URL(fileURLWithPath: path)
        do {
            try DirectoryFolder(root: file.deletingLastPathComponent()).writeAtomically(file.lastPathComponent, bytes)
        } catch {
            throw ReplicaError.storage(detail: "cannot write \(path): \(error)")
        }
    }
}
