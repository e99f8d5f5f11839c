import Foundation
import HyzerSync

/// The shared folder of a simulated world: one file tree that every folder-using device sees
/// through its own delays, as a folder-sync tool would deliver it.
///
/// Each write reaches each other device after its own delay, so files arrive late and out of
/// order; a device may first see a prefix of a file under its final name (half-written), or a
/// writer's temporary file; a file may be delivered twice (same bytes, new modification time).
/// Versions of one path reach a device in order. A crash mid-write leaves the writer's
/// temporary file behind, half-written, forever.
final class SimulatedFolderStore: @unchecked Sendable {
    /// When one version of a file reaches one device.
    struct Arrival {
        var visibleAt: UInt64
        var partialFrom: UInt64?
        var partialLength = 0
        var temporaryFrom: UInt64?
        var redeliveredAt: UInt64?
    }

    struct Version {
        let bytes: [UInt8]
        let writtenAt: UInt64
        var arrivals: [Int: Arrival]
    }

    struct File {
        let writer: Int
        var versions: [Version]
        var removal: [Int: UInt64]?
    }

    /// What the folder did that the coverage report counts.
    struct Counters {
        var filesWritten = 0
        var halfWrittenReads = 0
        var duplicatesDelivered = 0
        var outOfOrderArrivals = 0
        var lateArrivals = 0
        var temporaryFilesShown = 0
        var leftoverTemporaryFiles = 0
    }

    private let lock = NSLock()
    private let clock: VirtualClock
    private let settings: FolderSettings
    private var random: SimulationRandom
    private var observers: [Int]
    private var files: [String: File] = [:]
    /// The names of the files and directories written directly in each directory ("" the root).
    private var children: [String: Set<String>] = [:]
    private var leftovers: [String: (writer: Int, bytes: [UInt8], visibleAt: [Int: UInt64])] = [:]
    private var madeDirectories: Set<String> = []
    private var failingWriters: Set<Int> = []
    /// The latest arrival so far, per (writer, observer): what reveals out-of-order delivery.
    private var latestArrival: [Int: [Int: UInt64]] = [:]
    private var healed = false
    private(set) var counters = Counters()
    /// The bundle files each observer read, by path, since it last took them (`takeBundlesRead`).
    private var bundlesRead: [Int: [(path: String, bytes: [UInt8])]] = [:]

    init(clock: VirtualClock, settings: FolderSettings, observers: [Int], random: SimulationRandom) {
        self.clock = clock
        self.settings = settings
        self.observers = observers.sorted()
        self.random = random
    }

    /// The bundle files `observer` read since the last call: what the checks compare its store with.
    func takeBundlesRead(observer: Int) -> [(path: String, bytes: [UInt8])] {
        locked { bundlesRead.removeValue(forKey: observer) ?? [] }
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// From now on: short delays, nothing late, half-written or duplicated; and what is still
    /// in flight arrives within `catchUpMilliseconds`, as a folder-sync tool catches up once
    /// every device is back online. One deadline for all keeps each path's versions in order.
    func heal() {
        locked {
            healed = true
            let deadline = clock.now + Self.catchUpMilliseconds
            for path in files.keys.sorted() {
                var file = files[path]!
                for index in file.versions.indices {
                    for observer in observers {
                        guard var arrival = file.versions[index].arrivals[observer] else { continue }
                        arrival.visibleAt = min(arrival.visibleAt, deadline)
                        arrival.partialFrom = nil
                        arrival.temporaryFrom = nil
                        if let redelivered = arrival.redeliveredAt, redelivered > deadline { arrival.redeliveredAt = nil }
                        file.versions[index].arrivals[observer] = arrival
                    }
                }
                if var removal = file.removal {
                    for observer in observers { if let at = removal[observer] { removal[observer] = min(at, deadline + 1) } }
                    file.removal = removal
                }
                files[path] = file
            }
        }
    }

    /// How long in-flight files take to arrive after the heal.
    static let catchUpMilliseconds: UInt64 = 30_000

    /// The next write of `writer` fails after leaving its temporary file half-written: the
    /// writer was killed mid-write.
    func failNextWrite(of writer: Int) { _ = locked { failingWriters.insert(writer) } }

    /// Forgets a pending injected failure (the heal).
    func clearFailures() { locked { failingWriters.removeAll() } }

    // MARK: The operations of `SharedFolder`, as one device sees them

    func list(_ directory: String, observer: Int) -> [FolderEntry] {
        locked {
            let now = clock.now
            let prefix = directory.isEmpty ? "" : directory + "/"
            var entries: [String: FolderEntry] = [:]
            for name in children[directory] ?? [] {
                guard let file = files[prefix + name] else {
                    if anyVisible(under: prefix + name, observer: observer, now: now) {
                        entries[name] = FolderEntry(name: name, isDirectory: true, size: 0, modified: 0)
                    }
                    continue
                }
                if let seen = view(file, observer: observer, now: now) {
                    entries[name] = FolderEntry(name: name, isDirectory: false, size: UInt64(seen.bytes.count), modified: seen.modified)
                }
                if let temporary = temporaryView(file, name: name, observer: observer, now: now) { entries[temporary.name] = temporary }
            }
            for (path, leftover) in leftovers where path.hasPrefix(prefix) {
                let name = String(path.dropFirst(prefix.count))
                guard !name.contains("/"), let visibleAt = leftover.visibleAt[observer], visibleAt <= now else { continue }
                entries[name] = FolderEntry(
                    name: name, isDirectory: false, size: UInt64(leftover.bytes.count), modified: visibleAt * 1_000_000)
            }
            for made in madeDirectories where made.hasPrefix("\(observer):" + prefix) {
                let name = String(made.dropFirst("\(observer):".count + prefix.count))
                if !name.isEmpty, !name.contains("/") { entries[name] = FolderEntry(name: name, isDirectory: true, size: 0, modified: 0) }
            }
            return entries.keys.sorted().map { entries[$0]! }
        }
    }

    /// Whether `observer` sees any file below `directory` at `now`: a directory shows while
    /// something in it does.
    private func anyVisible(under directory: String, observer: Int, now: UInt64) -> Bool {
        (children[directory] ?? []).contains { name in
            let path = directory + "/" + name
            if let file = files[path] { return view(file, observer: observer, now: now) != nil }
            return anyVisible(under: path, observer: observer, now: now)
        }
    }

    /// Records `path` under each of its directories, for `list`.
    private func index(_ path: String) {
        var rest = Substring(path)
        while let slash = rest.lastIndex(of: "/") {
            let directory = String(rest[..<slash])
            let (inserted, _) = children[directory, default: []].insert(String(rest[rest.index(after: slash)...]))
            guard inserted else { return }
            rest = rest[..<slash]
        }
        children["", default: []].insert(String(rest))
    }

    func read(_ path: String, observer: Int) throws -> [UInt8] {
        try locked {
            let now = clock.now
            if let file = files[path], let seen = view(file, observer: observer, now: now) {
                if seen.partial { counters.halfWrittenReads += 1 }
                if path.hasSuffix(FolderLayout.bundleExtension) { bundlesRead[observer, default: []].append((path, seen.bytes)) }
                return seen.bytes
            }
            if let leftover = leftovers[path], let visibleAt = leftover.visibleAt[observer], visibleAt <= now {
                return leftover.bytes
            }
            throw FolderError(path: path, reason: "No such file or directory")
        }
    }

    func write(_ path: String, _ bytes: [UInt8], writer: Int) throws {
        try locked {
            let now = clock.now
            if failingWriters.remove(writer) != nil {
                let slash = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
                let temporary = String(path[..<slash]) + "." + String(path[slash...]) + ".\(writer).tmp"
                let length = bytes.isEmpty ? 0 : random.below(bytes.count)
                var visibleAt: [Int: UInt64] = [:]
                for observer in observers { visibleAt[observer] = observer == writer ? now : now + arrivalDelay() }
                leftovers[temporary] = (writer, Array(bytes.prefix(length)), visibleAt)
                counters.leftoverTemporaryFiles += 1
                throw FolderError(path: path, reason: "killed while writing \(temporary)")
            }
            var file = files[path] ?? File(writer: writer, versions: [], removal: nil)
            let previous = file.versions.last
            var arrivals: [Int: Arrival] = [:]
            for observer in observers where observer != writer {
                var visibleAt = now + arrivalDelay()
                if let earlier = previous?.arrivals[observer]?.visibleAt { visibleAt = max(visibleAt, earlier + 1) }
                var arrival = Arrival(visibleAt: visibleAt)
                if !healed, previous == nil, !bytes.isEmpty, random.chance(settings.partialRate) {
                    arrival.partialFrom = now + (visibleAt - now) / 3
                    arrival.partialLength = random.below(bytes.count)
                }
                if !healed, random.chance(settings.temporaryFileRate) { arrival.temporaryFrom = now + (visibleAt - now) / 4 }
                if !healed, random.chance(settings.duplicateRate) {
                    arrival.redeliveredAt = visibleAt + UInt64(random.integer(in: 1_000...600_000))
                    counters.duplicatesDelivered += 1
                }
                if visibleAt - now > 10 * 60_000 { counters.lateArrivals += 1 }
                if let latest = latestArrival[writer]?[observer], visibleAt < latest { counters.outOfOrderArrivals += 1 }
                latestArrival[writer, default: [:]][observer] = max(latestArrival[writer]?[observer] ?? 0, visibleAt)
                arrivals[observer] = arrival
            }
            file.versions.append(Version(bytes: bytes, writtenAt: now, arrivals: arrivals))
            file.removal = nil
            if file.versions.count == 1 { index(path) }
            files[path] = file
            counters.filesWritten += 1
        }
    }

    func remove(_ path: String, writer: Int) {
        locked {
            let now = clock.now
            guard var file = files[path] else { return }
            var removal: [Int: UInt64] = [writer: now]
            for observer in observers where observer != writer {
                let arrived = file.versions.last?.arrivals[observer]?.visibleAt ?? now
                removal[observer] = max(now + arrivalDelay(), arrived + 1)
            }
            file.removal = removal
            files[path] = file
        }
    }

    func makeDirectory(_ path: String, observer: Int) {
        _ = locked { madeDirectories.insert("\(observer):" + path) }
    }

    // MARK: Visibility

    private func arrivalDelay() -> UInt64 {
        let low = max(0, settings.minDelaySeconds) * 1_000
        let high = max(low, settings.maxDelaySeconds * 1_000)
        if healed { return UInt64(random.integer(in: low...max(low, min(high, 30_000)))) }
        var delay = UInt64(random.integer(in: low...high))
        if random.chance(settings.lateRate) { delay += UInt64(random.integer(in: 60_000...max(60_000, settings.lateMaxMinutes * 60_000))) }
        return delay
    }

    /// What `observer` sees of `file` at `now`: the bytes, whether they are a prefix, and the
    /// modification time in nanoseconds.
    private func view(_ file: File, observer: Int, now: UInt64) -> (bytes: [UInt8], partial: Bool, modified: UInt64)? {
        if let removal = file.removal, let removedAt = removal[observer], removedAt <= now { return nil }
        if observer == file.writer {
            guard let latest = file.versions.last(where: { $0.writtenAt <= now }) else { return nil }
            return (latest.bytes, false, latest.writtenAt * 1_000_000)
        }
        for (index, version) in file.versions.enumerated().reversed() {
            guard let arrival = version.arrivals[observer] else { continue }
            if arrival.visibleAt <= now {
                let modified = arrival.redeliveredAt.map { $0 <= now ? $0 : arrival.visibleAt } ?? arrival.visibleAt
                return (version.bytes, false, modified * 1_000_000)
            }
            if index == 0, let from = arrival.partialFrom, from <= now {
                return (Array(version.bytes.prefix(arrival.partialLength)), true, from * 1_000_000)
            }
        }
        return nil
    }

    private func temporaryView(_ file: File, name: String, observer: Int, now: UInt64) -> FolderEntry? {
        guard observer != file.writer, let version = file.versions.last, let arrival = version.arrivals[observer],
            let from = arrival.temporaryFrom, from <= now, now < arrival.visibleAt
        else { return nil }
        counters.temporaryFilesShown += 1
        return FolderEntry(
            name: ".\(name).\(file.writer).tmp", isDirectory: false, size: UInt64(version.bytes.count / 2), modified: from * 1_000_000)
    }
}
