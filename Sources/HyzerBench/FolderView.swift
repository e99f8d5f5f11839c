import HyzerDomain
import HyzerSync

/// A shared folder in which the author directories other than `visible` are not listed.
struct FolderView: SharedFolder {
    let base: DirectoryFolder
    let visible: Set<String>

    var identity: String { base.identity }

    func list(_ directory: String) throws -> [FolderEntry] {
        try base.list(directory).filter { AuthorID(hex: $0.name) == nil || visible.contains($0.name) }
    }

    func read(_ path: String, maximumBytes: Int) throws -> [UInt8] { try base.read(path, maximumBytes: maximumBytes) }
    func writeAtomically(_ path: String, _ bytes: [UInt8]) throws { try base.writeAtomically(path, bytes) }
    func remove(_ path: String) throws { try base.remove(path) }
    func makeDirectory(_ path: String) throws { try base.makeDirectory(path) }
}
