import Foundation

/// The process that holds a store's write lock, as Linux's `/proc/locks` names it, so that
/// "the store is busy" can say whom the user waits for.
///
/// In WAL mode SQLite's writer holds a POSIX write lock on byte 120 of the `-shm` file (121 a
/// checkpointer, 122 a recovery); with a rollback journal, a writer holds a write lock on the
/// database file itself. Either names the holder's pid.
public struct StoreHolder: Equatable, Sendable, CustomStringConvertible {
    /// The holder's process id.
    public let pid: Int32
    /// The holder's command name and arguments, when `/proc/PID/cmdline` is readable.
    public let commandLine: String?

    /// A holder from its parts.
    public init(pid: Int32, commandLine: String?) {
        self.pid = pid
        self.commandLine = commandLine
    }

    /// `pid N: COMMAND LINE`, or `pid N` without a command line.
    public var description: String { commandLine.map { "pid \(pid): \($0)" } ?? "pid \(pid)" }

    /// The longest command line shown, in characters.
    static let commandLineMax = 100

    /// The most of `/proc/locks` read, in bytes: about 70,000 locks.
    static let locksMax = 4 << 20

    /// The holder of the write lock on the database at `path`; nil when no lock names one (no
    /// `/proc`, or the lock was released meanwhile).
    static func find(database path: String) -> StoreHolder? {
        guard let locks = procLocks() else { return nil }
        let shm = fileID(path + "-shm")
        let database = fileID(path)
        for line in locks.split(separator: "\n") {
            // "1: POSIX  ADVISORY  WRITE 1234 08:01:5678 120 120"; a waiter's line has "->" after the id.
            let fields = line.split(separator: " ")
            guard fields.count == 8, fields[1] == "POSIX", fields[3] == "WRITE", let pid = Int32(fields[4]), pid > 0,
                let start = UInt64(fields[6])
            else { continue }
            let end = UInt64(fields[7]) ?? .max  // "EOF"
            let file = String(fields[5])
            if file == shm && start <= 122 && end >= 120 || file == database {
                return StoreHolder(pid: pid, commandLine: commandLine(of: pid))
            }
        }
        return nil
    }

    /// `/proc/locks` read to its end (or `locksMax`). The kernel hands it out a page per read, newest
    /// locks first, and Foundation's `String(contentsOfFile:)` stops after the first page: on a
    /// machine with many locks the holder's line was never read.
    private static func procLocks() -> String? {
        guard let handle = FileHandle(forReadingAtPath: "/proc/locks") else { return nil }
        defer { try? handle.close() }
        var text = Data()
        while text.count < locksMax, let chunk = try? handle.read(upToCount: 1 << 16), !chunk.isEmpty {
            text.append(chunk)
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// A file as `/proc/locks` names it: `MAJOR:MINOR:INODE`, the device numbers in hex.
    private static func fileID(_ path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        let device = UInt64(status.st_dev)
        let major = (device >> 32) & 0xffff_f000 | (device >> 8) & 0xfff
        let minor = (device >> 12) & 0xffff_ff00 | device & 0xff
        return String(format: "%02llx:%02llx:%llu", major, minor, UInt64(status.st_ino))
    }

    /// The command's name (without its directory) and arguments, separated by spaces; control
    /// characters show as `?`, and the whole is cut at `commandLineMax` characters.
    static func commandLine(of pid: Int32) -> String? {
        guard let handle = FileHandle(forReadingAtPath: "/proc/\(pid)/cmdline") else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: 4096), !data.isEmpty else { return nil }
        var arguments = data.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        if arguments.last == "" { arguments.removeLast() }
        guard let command = arguments.first else { return nil }
        arguments[0] = (command as NSString).lastPathComponent
        let shown = String(
            arguments.joined(separator: " ").unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : Character($0) })
        return shown.count <= commandLineMax ? shown : String(shown.prefix(commandLineMax - 1)) + "…"
    }
}
