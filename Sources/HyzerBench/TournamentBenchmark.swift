import Foundation
import HyzerKit
import HyzerSync
import Logging

/// A tournament's cost by its size (`Tournament`): the director's folder sync over every
/// device's directory with nothing new and with one new bundle, beside listing the folder; the
/// bytes of a no-op and a one-op TCP sync between the director and a phone holding the same
/// ops, whose hellos carry a vector entry per author, beside a full bundle. The largest size
/// also runs `LivePeersBenchmark`.
struct TournamentBenchmark {
    /// Device counts, smallest first.
    let sizes: [Int]
    let repetitions: Int
    /// The live-peer measurement's CPU window and scores sent.
    let window: Duration
    let scores: Int
    let scratch: URL

    func run() async throws -> [Figure] {
        var figures: [Figure] = []
        for devices in sizes {
            let directory = scratch.appendingPathComponent("tournament-\(devices)")
            let tournament = try Tournament(devices: devices, directory: directory)
            figures += try folderFigures(tournament)
            figures += try await tcpFigures(tournament)
            if devices == sizes.last {
                figures += try await LivePeersBenchmark(tournament: tournament, window: window, scores: scores, scratch: directory).run()
            }
            try tournament.close()
            try? FileManager.default.removeItem(at: directory)
        }
        return figures
    }

    private func folderFigures(_ tournament: Tournament) throws -> [Figure] {
        let devices = tournament.phones.count
        var nothingNew = Samples()
        var oneBundle = Samples()
        var listing = Samples()
        for repetition in 0..<repetitions {
            listing.add(try Stopwatch.seconds { _ = try Self.listAll(tournament.folder, "hyzer") })
            var report = FolderSyncReport()
            nothingNew.add(try Stopwatch.seconds { report = try FolderSync(replica: tournament.director, folder: tournament.folder).run() })
            guard report.bundlesRead == 0, report.bundlesWritten == 0 else {
                throw BenchError.unexpected("a folder sync with nothing new read or wrote")
            }

            let phone = tournament.phones[repetition % devices]
            let card = tournament.cards[repetition % devices % tournament.cards.count]
            _ = try phone.recordScore(round: card.round, player: card.players[0], hole: 18, strokes: 2 + repetition % 3)
            try tournament.phoneSync(phone)
            oneBundle.add(try Stopwatch.seconds { report = try FolderSync(replica: tournament.director, folder: tournament.folder).run() })
            guard report.bundlesRead == 1, report.opsIngested == 1 else {
                throw BenchError.unexpected("the new bundle was not read: \(report)")
            }
        }
        let baselineName =
            "listing the folder: every directory's entries with their size and time (the floor of seeing that nothing changed)"
        func figure(_ name: String, _ samples: Samples, target: Double) -> Figure {
            Figure(
                name: "\(name) (\(devices) devices)", value: samples.median * 1000, unit: "ms", baseline: listing.median * 1000,
                baselineName: baselineName, ratio: listing.median / samples.median, target: "≤ \(Int(target)) ms",
                met: samples.median * 1000 <= target, spread: samples.spread)
        }
        return [
            figure("folder sync, nothing new", nothingNew, target: 50),
            figure("folder sync, one new bundle", oneBundle, target: 100),
        ]
    }

    /// Every entry under `directory`, recursively: what a folder sync lists.
    private static func listAll(_ folder: DirectoryFolder, _ directory: String) throws -> Int {
        var count = 0
        for entry in try folder.list(directory) {
            count += 1
            if entry.isDirectory { count += try listAll(folder, directory + "/" + entry.name) }
        }
        return count
    }

    private func tcpFigures(_ tournament: Tournament) async throws -> [Figure] {
        var logger = Logger(label: "bench")
        logger.logLevel = .critical
        let director = tournament.director
        let phone = tournament.phones[0]
        _ = try phone.ingest(try director.delta(above: try phone.versionVector()))
        let authors = try director.versionVector().heads.count
        let fullBundle = Bundle(
            groupID: tournament.group.id, sender: director.author, senderVector: try director.versionVector(),
            segments: try director.delta(above: VersionVector())
        ).encoded(signedBy: director.signature(of:)).count

        let server = try await PeerServer(replica: director, group: tournament.group, logger: logger).start()
        defer { server.stop() }
        func sync() async throws -> ConnectionOutcome {
            try await PeerDialer.connectAndRun(server.address, replica: phone, group: tournament.group, mode: .oneShot, logger: logger)
        }
        _ = try await sync()
        let quiet = try await sync()
        let card = tournament.cards[0]
        _ = try director.recordScore(round: card.round, player: card.players[1], hole: 18, strokes: 3)
        let one = try await sync()
        guard quiet.failure == nil, one.failure == nil, quiet.opsReceived == 0, one.opsReceived == 1 else {
            throw BenchError.unexpected("the tournament's TCP syncs failed: \(quiet), \(one)")
        }
        func figure(_ name: String, _ outcome: ConnectionOutcome, target: Int) -> Figure {
            let bytes = Double(outcome.bytesSent + outcome.bytesReceived)
            return Figure(
                name: "\(name) (\(tournament.phones.count) devices, \(authors) authors)", value: bytes, unit: "bytes",
                baseline: Double(fullBundle), baselineName: "a full bundle of the director's replica (what a naive sync sends)",
                ratio: Double(fullBundle) / bytes, target: "< \(target) B", met: bytes < Double(target), spread: 0)
        }
        // The targets of the two-replica sync figures: what a no-op or one-op sync costs whatever the history.
        return [figure("no-op sync", quiet, target: 2048), figure("one-op sync", one, target: 3072)]
    }
}
