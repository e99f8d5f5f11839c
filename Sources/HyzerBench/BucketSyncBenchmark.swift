import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit
import HyzerSync
import HyzerTestSupport
import Synchronization

/// Sync through an S3-compatible bucket (docs/bucket-sync.md) against a SeaweedFS the bench
/// starts on loopback (`weed mini`, the harness of the tests): for groups of each size, the
/// requests and bytes of a sync that finds nothing new, of the writer of one new bundle and of
/// a reader of it, as each device's `BucketClient` counts them; and the time for a group to
/// converge on one round, each device syncing in turn. Each beside the same through a local
/// directory: its folder calls (listings, reads, writes, removals), bytes and time.
struct BucketSyncBenchmark {
    /// The group sizes measured.
    let sizes: [Int]
    /// The size whose group then converges on one round (one of `sizes`).
    let converging: Int
    /// No-op syncs timed per size.
    let repetitions: Int
    let scratch: URL

    /// Why the figures cannot be measured here, or `nil`: outside CI, a machine without `weed`
    /// skips them (under CI, where `.ci/run` installs it, a missing `weed` fails the run).
    static var skipped: String? { SeaweedFS.executable == nil && !SeaweedFS.underCI ? SeaweedFS.install : nil }

    func run(progress: (String) -> Void) throws -> [Figure] {
        let store = try SeaweedFS.ready()
        defer { store.stop() }
        var figures: [Figure] = []
        for size in sizes {
            progress("bucket sync with \(size) devices")
            let directory = scratch.appendingPathComponent("bucket-\(size)")
            let prefix = "bench-\(getpid())-\(size)"
            let bucket = try League(devices: size, directory: directory.appendingPathComponent("bucket")) {
                let folder = try store.folder(prefix)
                return (folder, { folder.client.traffic })
            }
            defer { try? bucket.close() }
            let folderRoot = directory.appendingPathComponent("folder")
            let folder = try League(devices: size, directory: directory.appendingPathComponent("local")) {
                let folder = MeteredFolder(base: DirectoryFolder(root: folderRoot))
                return (folder, { folder.traffic })
            }
            defer { try? folder.close() }
            figures += try syncFigures(size: size, bucket: bucket, folder: folder)
            if size == converging {
                progress("\(size) devices converging on one round, through the bucket and through a folder")
                figures += try convergenceFigures(size: size, bucket: bucket, folder: folder)
            }
        }
        return figures
    }

    /// The no-op, writer and reader syncs through both, once each group is quiet.
    private func syncFigures(size: Int, bucket: League, folder: League) throws -> [Figure] {
        _ = try bucket.syncUntilQuiet()
        _ = try folder.syncUntilQuiet()
        // The last device syncs with nothing new; the second writes one new bundle; the last reads it.
        let reader = size - 1
        var quiet = (bucket: Samples(), folder: Samples())
        var quietCost = (bucket: BucketTraffic(), folder: BucketTraffic())
        for _ in 0..<repetitions {
            let b = try bucket.sync(reader)
            let f = try folder.sync(reader)
            quiet.bucket.add(b.seconds)
            quiet.folder.add(f.seconds)
            quietCost = (b.cost, f.cost)
            guard b.moved == false, f.moved == false else { throw BenchError.unexpected("a quiet group's sync moved something") }
        }
        for league in [bucket, folder] { try league.score(device: 1, hole: 1) }
        let written = (bucket: try bucket.sync(1), folder: try folder.sync(1))
        let read = (bucket: try bucket.sync(reader), folder: try folder.sync(reader))
        // One card entry: one op a player of the card, in one bundle.
        guard written.bucket.report.bundlesWritten == 1, read.bucket.report.bundlesRead == 1, read.bucket.report.opsIngested == 4,
            read.folder.report.opsIngested == 4
        else {
            throw BenchError.unexpected("one new bundle: written \(written.bucket.report), read \(read.bucket.report)")
        }

        let floor = "the same sync through a local folder"
        var figures: [Figure] = []
        func add(
            _ what: String, bucket: BucketTraffic, folder: BucketTraffic, seconds: Double, folderSeconds: Double, spread: Double,
            target: Int?
        ) {
            let name = "bucket sync, \(what) (\(size) devices)"
            let requests = Double(bucket.requests)
            figures.append(
                Figure(
                    name: name + ", requests", value: requests, unit: "requests", baseline: Double(folder.requests),
                    baselineName: floor + ", in folder calls (listings, reads, writes, removals)",
                    ratio: Double(folder.requests) / requests, target: target.map { "≤ \($0)" }, met: target.map { bucket.requests <= $0 },
                    spread: 0))
            for (direction, value, base) in [
                ("sent", bucket.bytesSent, folder.bytesSent), ("received", bucket.bytesReceived, folder.bytesReceived),
            ] {
                figures.append(
                    Figure(
                        name: name + ", bytes \(direction)", value: Double(value), unit: "bytes", baseline: Double(base),
                        baselineName: floor + ", in bytes of the files \(direction == "sent" ? "written" : "read")",
                        ratio: value > 0 && base > 0 ? Double(base) / Double(value) : nil, target: nil, met: nil, spread: 0))
            }
            figures.append(
                Figure(
                    name: name + ", time", value: seconds * 1000, unit: "ms", baseline: folderSeconds * 1000, baselineName: floor,
                    ratio: folderSeconds / seconds, target: nil, met: nil, spread: spread))
        }
        add(
            "nothing new", bucket: quietCost.bucket, folder: quietCost.folder, seconds: quiet.bucket.median,
            folderSeconds: quiet.folder.median, spread: quiet.bucket.spread, target: 3)
        add(
            "one new bundle, its writer", bucket: written.bucket.cost, folder: written.folder.cost, seconds: written.bucket.seconds,
            folderSeconds: written.folder.seconds, spread: 0, target: nil)
        // The goal: a reader pays the no-op's ≤ 3 requests and one GET.
        add(
            "one new bundle, a reader", bucket: read.bucket.cost, folder: read.folder.cost, seconds: read.bucket.seconds,
            folderSeconds: read.folder.seconds, spread: 0, target: 4)
        return figures
    }

    /// Every device scores once; then each syncs in turn, pass after pass, until every device
    /// holds the same ops (the same digest, so the same standings).
    private func convergenceFigures(size: Int, bucket: League, folder: League) throws -> [Figure] {
        _ = try bucket.syncUntilQuiet()
        _ = try folder.syncUntilQuiet()
        for league in [bucket, folder] {
            for device in 0..<size { try league.score(device: device, hole: 2) }
        }
        let b = try bucket.converge()
        let f = try folder.converge()
        let floor = "the same through a local folder"
        let name = "\(size) devices converge on one round through the bucket"
        func figure(_ what: String, _ value: Double, _ base: Double, unit: String, _ baseline: String = "") -> Figure {
            Figure(
                name: name + ", " + what, value: value, unit: unit, baseline: base, baselineName: floor + baseline,
                ratio: base / max(value, 1e-9), target: nil, met: nil, spread: 0)
        }
        return [
            figure("time", b.seconds, f.seconds, unit: "s"),
            figure("passes", Double(b.passes), Double(f.passes), unit: "passes"),
            figure("LISTs", Double(b.cost.lists), Double(f.cost.lists), unit: "requests", ", in directory listings"),
            figure("GETs", Double(b.cost.gets), Double(f.cost.gets), unit: "requests", ", in files read"),
            figure("PUTs", Double(b.cost.puts), Double(f.cost.puts), unit: "requests", ", in files written"),
            figure(
                "bytes received", Double(b.cost.bytesReceived), Double(f.cost.bytesReceived), unit: "bytes", ", in bytes of the files read"),
        ]
    }
}

/// The devices of one group, each syncing through its own view of one storage: device 0 is the
/// director's laptop, which added the players (four to a card, up to 36 cards) and started a
/// round per card; every other device holds the director's ops, as after joining.
private final class League: Sendable {
    struct Device {
        let replica: Replica
        let folder: any SharedFolder
        let traffic: @Sendable () -> BucketTraffic
    }

    /// One device's sync: what it did, what it cost and how long it took.
    struct Sync {
        let report: FolderSyncReport
        let cost: BucketTraffic
        let seconds: Double

        var moved: Bool {
            report.bundlesWritten + report.bundlesRead + report.opsIngested + report.devicesAdmitted > 0 || report.vectorPublished
        }
    }

    static let group = GroupMembership(
        id: UUID(v5: "bench-bucket", namespace: SeededCourses.namespace), secret: Array(repeating: 41, count: 32))

    let devices: [Device]
    let cards: [(round: String, players: [String])]

    init(devices count: Int, directory: URL, storage: () throws -> (any SharedFolder, @Sendable () -> BucketTraffic)) throws {
        let director = try Replica.create(
            at: directory.appendingPathComponent("director"), name: "director", kind: .laptop, owner: "Director")
        try director.join(Self.group)
        var cards: [(round: String, players: [String])] = []
        for card in 0..<min(36, max(1, count / 4)) {
            let players = Array(Tournament.playerNames[(card * 4)..<(card * 4 + 4)])
            for name in players { _ = try director.addPlayer(name: name) }
            cards.append((try director.startRound(course: "Morley Field", players: players).id.lowercased, players))
        }
        self.cards = cards
        let directorOps = try director.delta(above: VersionVector())
        var replicas = [director]
        for index in 1..<max(2, count) {
            let phone = try Replica.create(at: directory.appendingPathComponent("phone-\(index)"), name: "phone-\(index)", kind: .phone)
            try phone.join(Self.group)
            _ = try phone.ingest(directorOps)
            replicas.append(phone)
        }
        devices = try replicas.map { replica in
            let (folder, traffic) = try storage()
            return Device(replica: replica, folder: folder, traffic: traffic)
        }
    }

    /// Device `index` scores its card (the card `index` falls on) on `hole`.
    func score(device index: Int, hole: Int) throws {
        let card = cards[index % cards.count]
        let text = card.players.enumerated().map { "\($0.element) \(2 + ($0.offset + hole + index) % 4)" }.joined(separator: ", ")
        try devices[index].replica.recordCard(round: card.round, text: text, hole: hole)
    }

    /// One sync of device `index`.
    func sync(_ index: Int) throws -> Sync {
        let device = devices[index]
        let before = device.traffic()
        var report = FolderSyncReport()
        let seconds = try Stopwatch.seconds { report = try FolderSync(replica: device.replica, folder: device.folder).run() }
        return Sync(report: report, cost: device.traffic() - before, seconds: seconds)
    }

    /// Passes of every device syncing until a pass moves nothing; the passes it took. Not
    /// measured, so four devices sync at once (their order within a pass does not matter here).
    func syncUntilQuiet() throws -> Int {
        for pass in 1...12 {
            let moved = Atomic(false)
            let failure = Mutex<(any Error)?>(nil)
            let next = Atomic(0)
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                while case let index = next.add(1, ordering: .relaxed).oldValue, index < devices.count {
                    do {
                        if try sync(index).moved { moved.store(true, ordering: .relaxed) }
                    } catch {
                        failure.withLock { $0 = error }
                    }
                }
            }
            if let error = failure.withLock({ $0 }) { throw error }
            if !moved.load(ordering: .relaxed) { return pass }
        }
        throw BenchError.unexpected("\(devices.count) devices still moved something after 12 passes")
    }

    /// Passes of every device syncing in turn until every device holds the same ops: the time,
    /// the passes and what they cost in all.
    func converge() throws -> (seconds: Double, passes: Int, cost: BucketTraffic) {
        let before = devices.map { $0.traffic() }
        var passes = 0
        let seconds = try Stopwatch.seconds {
            repeat {
                passes += 1
                guard passes <= 12 else { throw BenchError.unexpected("\(devices.count) devices did not converge in 12 passes") }
                for index in devices.indices { _ = try sync(index) }
            } while try Set(devices.map { try $0.replica.digest() }).count > 1
        }
        let cost = zip(devices, before).reduce(BucketTraffic()) { $0 + ($1.0.traffic() - $1.1) }
        return (seconds, passes, cost)
    }

    func close() throws {
        for device in devices { try device.replica.close() }
    }
}

/// A local directory's folder, counting its calls as a bucket client counts requests:
/// listings as LISTs, reads as GETs, writes as PUTs, removals as DELETEs,
/// with the bytes of the files read and written.
private final class MeteredFolder: SharedFolder {
    let base: DirectoryFolder
    private let counted = Mutex(BucketTraffic())

    init(base: DirectoryFolder) { self.base = base }

    var traffic: BucketTraffic { counted.withLock { $0 } }
    var identity: String { base.identity }

    func list(_ directory: String) throws -> [FolderEntry] {
        counted.withLock { $0.lists += 1 }
        return try base.list(directory)
    }

    func read(_ path: String, maximumBytes: Int) throws -> [UInt8] {
        let bytes = try base.read(path, maximumBytes: maximumBytes)
        counted.withLock {
            $0.gets += 1
            $0.bytesReceived += bytes.count
        }
        return bytes
    }

    func writeAtomically(_ path: String, _ bytes: [UInt8]) throws {
        counted.withLock {
            $0.puts += 1
            $0.bytesSent += bytes.count
        }
        try base.writeAtomically(path, bytes)
    }

    func remove(_ path: String) throws {
        counted.withLock { $0.deletes += 1 }
        try base.remove(path)
    }

    /// Not counted: a bucket has no directories, and a sync makes its own (nothing when it exists) every time.
    func makeDirectory(_ path: String) throws { try base.makeDirectory(path) }
}

extension BucketTraffic {
    static func + (a: BucketTraffic, b: BucketTraffic) -> BucketTraffic { a.combined(with: b, sign: 1) }
    static func - (a: BucketTraffic, b: BucketTraffic) -> BucketTraffic { a.combined(with: b, sign: -1) }

    private func combined(with other: BucketTraffic, sign: Int) -> BucketTraffic {
        var result = self
        result.lists += sign * other.lists
        result.gets += sign * other.gets
        result.puts += sign * other.puts
        result.deletes += sign * other.deletes
        result.bytesSent += sign * other.bytesSent
        result.bytesReceived += sign * other.bytesReceived
        return result
    }
}
