import HyzerSync

/// One device's view of the simulated shared folder: what `FolderSync` runs against.
struct SimulatedFolder: SharedFolder {
    let store: SimulatedFolderStore
    /// The device looking.
    let observer: Int

    var identity: String { "simulated-folder" }

    func list(_ directory: String) throws -> [FolderEntry] {
        store.list(directory, observer: observer)
    }

    func read(_ path: String, maximumBytes: Int) throws -> [UInt8] {
        let bytes = try store.read(path, observer: observer)
        guard bytes.count <= maximumBytes else { throw FolderError.tooLarge(path: path, size: UInt64(bytes.count), limit: maximumBytes) }
        return bytes
    }

    func writeAtomically(_ path: String, _ bytes: [UInt8]) throws {
        try store.write(path, bytes, writer: observer)
    }

    func remove(_ path: String) throws {
        store.remove(path, writer: observer)
    }

    func makeDirectory(_ path: String) throws {
        store.makeDirectory(path, observer: observer)
    }
}
