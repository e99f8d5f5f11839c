import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit

/// A shared folder on the local file system.
///
/// Whoever can write into the folder is an adversary (docs/security.md): every path below the
/// root is walked one component at a time with `openat(O_NOFOLLOW | O_DIRECTORY)`, files are
/// opened with `O_NOFOLLOW` and must be regular files no larger than the caller's bound, and
/// temporary files are created with `O_CREAT | O_EXCL` under unpredictable names. No symbolic
/// link inside the folder is ever followed, and nothing outside it is ever written. The root
/// itself is the user's choice and may be a link.
public struct DirectoryFolder: SharedFolder {
    /// The folder's root, standardized.
    public let root: URL

    /// The folder at `root`; nothing is opened until it is used.
    public init(root: URL) {
        self.root = root.standardizedFileURL
    }

    /// The root's path.
    public var identity: String { root.path }

    /// The entries of `directory`, walked without following links; `[]` when it does not exist.
    /// Throws `FolderError` when a component is a link or cannot be read.
    public func list(_ directory: String) throws -> [FolderEntry] {
        guard let descriptor = try openDirectory(directory, creating: false) else { return [] }
        guard let stream = fdopendir(descriptor) else {
            close(descriptor)
            throw error(directory, "the directory cannot be read (check its permissions)")
        }
        defer { closedir(stream) }
        var entries: [FolderEntry] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name != ".", name != ".." else { continue }
            var info = stat()
            guard fstatat(dirfd(stream), name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
            let kind: FolderEntry.Kind =
                switch info.st_mode & S_IFMT {
                case S_IFREG: .file
                case S_IFDIR: .directory
                default: .other
                }
            // Anyone with the folder sets a file's time, before 1970 or centuries ahead: the time is
            // only an identity, so its bits are taken as they are and the arithmetic wraps.
            #if canImport(Darwin)
                let time = info.st_mtimespec
            #else
                let time = info.st_mtim
            #endif
            let modified = UInt64(bitPattern: Int64(time.tv_sec)) &* 1_000_000_000 &+ UInt64(bitPattern: Int64(time.tv_nsec))
            entries.append(FolderEntry(name: name, kind: kind, size: UInt64(max(0, info.st_size)), modified: modified))
        }
        return entries.sorted { $0.name < $1.name }
    }

    /// The bytes of the regular file at `path`, opened without following a link; throws
    /// `FolderError` for a link, a non-regular file, or one larger than `maximumBytes` (before reading).
    public func read(_ path: String, maximumBytes: Int) throws -> [UInt8] {
        let (parent, name) = try split(path)
        guard let directory = try openDirectory(parent, creating: false) else { throw error(path, String(cString: strerror(ENOENT))) }
        defer { close(directory) }
        // O_NONBLOCK: opening a FIFO must not wait for a writer; regular files ignore it.
        let descriptor = openat(directory, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw error(path, Self.reason(errno, "a symbolic link, which hyzer-peer never follows")) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw error(path, String(cString: strerror(errno))) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw error(path, "not a regular file; it is not read") }
        guard info.st_size <= maximumBytes else {
            throw FolderError.tooLarge(path: absolute(path), size: UInt64(info.st_size), limit: maximumBytes)
        }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { SystemCall.read(descriptor, $0.baseAddress! + filled, $0.count - filled) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw error(path, String(cString: strerror(errno))) }
            if count == 0 { break }  // shrunk while being read: the content check refuses it
            filled += count
        }
        return Array(bytes.prefix(filled))
    }

    /// Writes `bytes` to a temporary file created exclusively under an unpredictable name, flushes
    /// it, renames it to `path` and flushes the directory; throws `FolderError` on any failure.
    public func writeAtomically(_ path: String, _ bytes: [UInt8]) throws {
        let (parent, name) = try split(path)
        guard let directory = try openDirectory(parent, creating: false) else { throw error(path, String(cString: strerror(ENOENT))) }
        defer { close(directory) }
        let temporary = "." + Hex.encode(SecureRandom.bytes(16)) + ".tmp"
        let descriptor = openat(directory, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw error(path, String(cString: strerror(errno))) }
        var failure: String?
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = SystemCall.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
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
        // renameat replaces whatever has the final name (a planted link too) without following it.
        if failure == nil, renameat(directory, temporary, directory, name) != 0 { failure = String(cString: strerror(errno)) }
        if let failure {
            unlinkat(directory, temporary, 0)
            throw error(path, failure)
        }
        // The rename is durable once the directory itself is flushed.
        fsync(directory)
    }

    /// Removes the file at `path`; nothing when it does not exist. Throws `FolderError` otherwise.
    public func remove(_ path: String) throws {
        let (parent, name) = try split(path)
        guard let directory = try openDirectory(parent, creating: false) else { return }
        defer { close(directory) }
        guard unlinkat(directory, name, 0) == 0 || errno == ENOENT else { throw error(path, String(cString: strerror(errno))) }
    }

    /// Creates `path` one component at a time, never through a link; throws `FolderError` when a
    /// component is a link or cannot be created.
    public func makeDirectory(_ path: String) throws {
        if let descriptor = try openDirectory(path, creating: true) { close(descriptor) }
    }

    // MARK: Walking without following links

    /// The components of a relative path; a refusal for `..`, `.`, empty components and NUL.
    private func components(_ path: String) throws -> [String] {
        guard !path.isEmpty else { return [] }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." && !$0.contains("\0") }) else {
            throw error(path, "not a path inside the shared folder")
        }
        return parts
    }

    private func split(_ path: String) throws -> (parent: String, name: String) {
        let parts = try components(path)
        guard let name = parts.last else { throw error(path, "not a path inside the shared folder") }
        return (parts.dropLast().joined(separator: "/"), name)
    }

    /// A descriptor of the directory at `path`, reached from the root one component at a time
    /// without following a link; `nil` when a component does not exist and `creating` is off.
    private func openDirectory(_ path: String, creating: Bool) throws -> Int32? {
        let parts = try components(path)
        // The root is the user's choice: made with its parents, and it may be a link.
        if creating { try? FileManager.default.createDirectory(at: root, withIntermediateDirectories: true) }
        var current = open(root.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard current >= 0 else {
            if errno == ENOENT, !creating { return nil }
            throw FolderError(path: root.path, reason: Self.reason(errno, "not a directory"))
        }
        var walked = ""
        for part in parts {
            walked += walked.isEmpty ? part : "/" + part
            if creating, mkdirat(current, part, 0o755) != 0, errno != EEXIST {
                let reason = String(cString: strerror(errno))
                close(current)
                throw error(walked, "the directory cannot be created (\(reason))")
            }
            let next = openat(current, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            let failure = errno
            close(current)
            guard next >= 0 else {
                if failure == ENOENT, !creating { return nil }
                throw error(
                    walked,
                    Self.reason(failure, "a symbolic link or a file where a directory should be; remove it (links are never followed)"))
            }
            current = next
        }
        return current
    }

    /// The system's reason, or `link` for the errors a symbolic link or a non-directory causes.
    private static func reason(_ code: Int32, _ link: String) -> String {
        code == ELOOP || code == ENOTDIR ? link : String(cString: strerror(code))
    }

    private func absolute(_ path: String) -> String { root.appendingPathComponent(path).path }

    private func error(_ path: String, _ reason: String) -> FolderError {
        FolderError(path: absolute(path), reason: reason)
    }
}
