import Foundation

/// A shared folder on the local file system.
public struct DirectoryFolder: SharedFolder {
    public let root: URL

    public init(root: URL) {
        self.root = root.standardizedFileURL
    }

    public var identity: String { root.path }

    private func url(_ path: String) -> URL { root.appendingPathComponent(path) }

    public func list(_ directory: String) throws -> [FolderEntry] {
        let base = url(directory)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: base.path, isDirectory: &isDirectory), isDirectory.boolValue else { return [] }
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: base.path) else {
            throw FolderError(path: base.path, reason: "the directory cannot be read (check its permissions)")
        }
        return names.sorted().compactMap { name in
            var info = stat()
            guard lstat(base.appendingPathComponent(name).path, &info) == 0 else { return nil }
            let kind = info.st_mode & S_IFMT
            guard kind == S_IFDIR || kind == S_IFREG else { return nil }  // links and devices are not ours
            // Anyone with the folder sets a file's time, before 1970 or centuries ahead: the time is
            // only an identity, so its bits are taken as they are and the arithmetic wraps.
            let modified = UInt64(bitPattern: Int64(info.st_mtim.tv_sec)) &* 1_000_000_000
                &+ UInt64(bitPattern: Int64(info.st_mtim.tv_nsec))
            return FolderEntry(name: name, isDirectory: kind == S_IFDIR, size: UInt64(info.st_size), modified: modified)
        }
    }

    public func read(_ path: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: url(path).path) else {
            throw FolderError(path: url(path).path, reason: "the file cannot be read")
        }
        return Array(data)
    }

    public func writeAtomically(_ path: String, _ bytes: [UInt8]) throws {
        let target = url(path)
        let temporary = target.deletingLastPathComponent().appendingPathComponent(".\(target.lastPathComponent).\(getpid()).tmp")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw FolderError(path: temporary.path, reason: String(cString: strerror(errno))) }
        var failure: String?
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = Glibc.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = String(cString: strerror(errno))
                    return
                }
                offset += written
            }
        }
        if failure == nil, fsync(descriptor) != 0 { failure = String(cString: strerror(errno)) }
        close(descriptor)
        if failure == nil, rename(temporary.path, target.path) != 0 { failure = String(cString: strerror(errno)) }
        if let failure {
            unlink(temporary.path)
            throw FolderError(path: target.path, reason: failure)
        }
        // The rename is durable once the directory itself is flushed.
        let directory = open(target.deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
    }

    public func remove(_ path: String) throws {
        guard unlink(url(path).path) == 0 || errno == ENOENT else {
            throw FolderError(path: url(path).path, reason: String(cString: strerror(errno)))
        }
    }

    public func makeDirectory(_ path: String) throws {
        do {
            try FileManager.default.createDirectory(at: url(path), withIntermediateDirectories: true)
        } catch {
            throw FolderError(path: url(path).path, reason: "the directory cannot be created (\(error.localizedDescription))")
        }
    }
}
