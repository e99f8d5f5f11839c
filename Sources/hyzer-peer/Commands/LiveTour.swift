import Foundation
import HyzerDomain
import HyzerEngine
import HyzerKit
import HyzerSync
import HyzerWeb
import Logging

/// The demo's second part: the back nine played live over loopback TCP by three phones and
/// Jake's watch. The watch talks only to Jake's phone; Sam's phone talks only to Maya's.
struct LiveTour {
    let root: URL
    let round: Round

    func step(_ text: String) { print("\n" + Terminal.paint("▸ " + text, .bold)) }

    func run() async throws {
        let jake = try Replica.open(at: root.appendingPathComponent("jake-phone"))
        let maya = try Replica.open(at: root.appendingPathComponent("maya-phone"))
        step("Sam's phone and Jake's watch join; the watch is paired with Jake's phone")
        let sam = try Replica.create(at: root.appendingPathComponent("sam-phone"), name: "sam-phone", kind: .phone)
        let watch = try Replica.create(at: root.appendingPathComponent("jake-watch"), name: "jake-watch", kind: .watch)
        let engines = try await [jake, maya, sam, watch].asyncMap { try await HyzerEngine.open(at: $0.directory) }
        // Admitted with an invitation, as every device but the organizer is (docs/security.md,
        // "Membership"): each asks the first member it dials, once the sync below starts.
        let token = try await engines[0].invite(uses: 2, expires: .seconds(86_400))
        for engine in engines[2...] { try await engine.acceptInvitation(token: token) }
        try jake.linkDevice(watch.author.hex, owner: "Jake")

        step("serve over loopback TCP: maya→jake, sam→maya, watch→jake (the watch never meets Sam's or Maya's phone)")
        let logger = Log.make("demo", level: .critical)
        var syncs: [SyncController] = []
        func serve(_ engine: HyzerEngine, dialing peer: PeerAddress?) async throws -> PeerAddress {
            let plan = SyncPlan(
                listen: PeerAddress(host: "127.0.0.1", port: 0), peers: peer.map { [$0] } ?? [], folderInterval: .milliseconds(100))
            let sync = try await engine.startSync(plan, logger: logger)
            syncs.append(sync)
            for await status in sync.statuses() { if let address = status.listening { return address } }
            throw CommandLineError.demoDidNotConverge
        }
        do {
            let jakeAddress = try await serve(engines[0], dialing: nil)
            let mayaAddress = try await serve(engines[1], dialing: jakeAddress)
            _ = try await serve(engines[2], dialing: mayaAddress)
            _ = try await serve(engines[3], dialing: jakeAddress)
            try await play(jake: jake, maya: maya, sam: sam, watch: watch, logger: logger)
        } catch {
            for sync in syncs { await sync.stop() }
            throw error
        }
        for sync in syncs { await sync.stop() }
        for engine in engines { try await engine.close() }
    }

    /// The live part once the four devices sync.
    private func play(jake: Replica, maya: Replica, sam: Replica, watch: Replica, logger: Logger) async throws {
        let replicas = [jake, maya, sam, watch]
        try await converge(replicas)
        print("four replicas hold the same \(try jake.status().opCount) ops")

        let id = round.id.lowercased
        step("Sam's phone also serves the live leaderboard on the web, as `serve --http` does")
        let web = try await WebServer(replica: sam, access: .open, metrics: WebMetrics(), logger: logger).start()
        defer { web.stop() }
        print("open http://127.0.0.1:\(web.port)/rounds/\(id) now to watch the back nine")
        fflush(nil)  // at once, even into a pipe

        step("the back nine, scored live: Jake on his watch, everyone else on Maya's phone")
        let card: [String: [Int]] = [
            "Jake": [3, 3, 2, 3, 3, 3, 4, 3, 3], "Maya": [3, 2, 3, 3, 3, 3, 3, 2, 3],
            "Sam": [3, 3, 3, 4, 3, 2, 3, 3, 3], "Priya": [2, 3, 3, 3, 3, 3, 3, 3, 3],
        ]
        var watchLatency: [Double] = []
        for hole in 10...18 {
            let started = ContinuousClock.now
            let event = try watch.recordScore(round: id, player: "Jake", hole: hole, strokes: card["Jake"]![hole - 10])
            // The watch's score reaches Sam's phone through Jake's and Maya's phones.
            while try sam.roundView(round.id)?.evaluation.validEvents.contains(where: { $0.id == event.id }) != true {
                try await Task.sleep(for: .milliseconds(1))
            }
            watchLatency.append(Double((ContinuousClock.now - started) / .microseconds(1)) / 1000)
            for name in ["Maya", "Sam", "Priya"] {
                try maya.recordScore(round: id, player: name, hole: hole, strokes: card[name]![hole - 10])
            }
            // A hole at a watchable pace, for whoever opened the page.
            try await Task.sleep(for: .milliseconds(Self.holePause))
        }
        print(
            String(
                format: "each watch score reached Sam's phone, two hops away, in %.1f ms at the median",
                watchLatency.sorted()[watchLatency.count / 2]))
        try await converge(replicas)
        try jake.finishRound(id, force: false)
        try await converge(replicas)
        step("final standings on Sam's phone, which never spoke to the watch")
        print(StandingsCommand.render(try sam.roundView(round.id)!))
        let boards = try Set(replicas.map { try StandingsCommand.render($0.roundView(round.id)!) })
        print(boards.count == 1 ? "byte-identical on all four replicas" : "NOT identical")
    }

    /// The pause between holes of the back nine, so the web page can be watched as it changes.
    static let holePause = 600

    private func converge(_ replicas: [Replica]) async throws {
        for _ in 0..<2000 {
            if try Set(replicas.map { try $0.digest() }).count == 1 { return }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw CommandLineError.demoDidNotConverge
    }
}

extension Array {
    /// The elements mapped in order by an async `transform`.
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var mapped: [T] = []
        for element in self { mapped.append(try await transform(element)) }
        return mapped
    }
}
