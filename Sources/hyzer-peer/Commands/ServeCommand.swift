import ArgumentParser
import Foundation
import HyzerEngine
import HyzerKit
import HyzerSync
import HyzerWeb
import Logging

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: "Sync live with peers over TCP (and a folder or a bucket, on a schedule) until interrupted.")
    @OptionGroup var storeOptions: StoreOptions
    @Option(help: "Where to accept peers, as HOST:PORT (port 0 picks a free one); with --discover, 0.0.0.0:0 by default.")
    var listen: String?
    @Option(name: .customLong("peer"), help: "A peer to dial and keep connected, as HOST:PORT (repeatable).") var peers: [String] = []
    @Flag(help: "Find the group's members on the LAN (DNS-SD) and keep them connected, beside --peer.") var discover = false
    @Flag(help: "Do not advertise this device on the LAN (it is, when --listen is not a loopback address).") var noAdvertise = false
    @Option(help: "Also sync this shared folder on a schedule.") var folder: String?
    @Option(help: "Seconds between folder syncs.") var folderInterval = 10
    @OptionGroup var bucket: BucketOptions
    @Option(help: "trace, debug, info, notice, warning, error or critical.") var logLevel = "info"
    @Option(help: ArgumentHelp("Also serve the read-only web pages, as HOST:PORT or PORT (loopback).", valueName: "HOST:PORT"))
    var http: String?
    @Flag(help: "Serve the web pages beyond loopback without a viewing token.") var httpPublic = false
    @Option(
        help: ArgumentHelp(
            "Also publish the read-only pages as static files to this bucket prefix after each change (same --endpoint, --region, --profile).",
            valueName: "s3://BUCKET/PREFIX"))
    var publish: String?
    @Flag(help: "Draw a new viewing-token salt first, revoking every link handed out before.") var rotateViewToken = false

    func validate() throws {
        guard listen != nil || discover else { throw ValidationError("give --listen HOST:PORT, or --discover to listen on every address") }
        if folder != nil, bucket.bucket != nil { throw ValidationError("give --folder DIR or --bucket s3://BUCKET/PREFIX, not both") }
        try bucket.check(publish: publish != nil)
    }

    func run() async throws {
        let listen = listen ?? "0.0.0.0:0"
        guard let address = PeerAddress(listen) else { throw CommandLineError.notHostPort(listen) }
        let dials = try peers.map { text in
            guard let peer = PeerAddress(text) else { throw CommandLineError.notHostPort(text) }
            return peer
        }
        guard let level = Logger.Level(rawValue: logLevel) else {
            throw CommandLineError.notALogLevel(logLevel)
        }
        let web = try http.map { text in
            guard let web = PeerAddress(text) ?? Int(text).flatMap({ PeerAddress("127.0.0.1:\($0)") }) else {
                throw CommandLineError.notAWebAddress(text)
            }
            return web
        }
        let engine = try await storeOptions.openEngine()
        let metrics = WebMetrics()
        let logger = Log.make("serve", level: level)
        var plan = SyncPlan(
            listen: address, peers: dials, folder: folder.map { URL(fileURLWithPath: $0) }, folderInterval: .seconds(folderInterval))
        // A bucket is synced like a folder, every --folder-interval seconds and up to a fifth more at random.
        plan.bucket = try bucket.folder()
        // A server runs on a member: a device still holding an invitation joins with `sync`
        // first, or by finding a member on the LAN that admits it.
        plan.joinsFirst = discover
        plan.discover = discover
        plan.advertise = !noAdvertise
        plan.connectionEnded = { metrics.record($0) }
        plan.connectionProgress = { metrics.record($0) }
        // The web pages are a read-only view of the store (docs/embedding.md, "The command line").
        let site = try web.map { web in
            let replica = try storeOptions.open()
            let access = try webAccess(web, groupSecret: try replica.requireGroup().secret)
            return (web, access, WebServer(replica: replica, access: access, metrics: metrics, logger: Log.make("web", level: level)))
        }
        // The same pages as static files in a bucket, for a static host or a CDN (docs/bucket-sync.md).
        let publisher = try publish.map { url in
            Publisher(replica: try storeOptions.open(), client: try bucket.client(url), logger: Log.make("publish", level: level))
        }
        if let published = publisher?.client.location, let synced = plan.bucket?.client.location, published.bucket == synced.bucket,
            published.prefix.isEmpty || synced.prefix == published.prefix || synced.prefix.hasPrefix(published.prefix + "/")
        {
            // Its readers may see everything under the published prefix: the group's objects stay out of it.
            throw CommandLineError.publishOverGroup(published.description)
        }
        // One line says why `serve` stops; its tasks end quietly. The watch is installed before
        // the sync starts, so a signal that comes first still stops it.
        let (stops, stop) = AsyncStream<Void>.makeStream()
        let signals = SignalWatch(SIGINT, SIGTERM) { name in
            logger.notice("stopping", metadata: ["signal": "\(name)"])
            stop.yield()
        }
        defer { signals.stop() }
        let controller = try await engine.startSync(plan, logger: logger)
        do {
            try await withThrowingTaskGroup { tasks in
                tasks.addTask {
                    for await _ in stops { return }
                }
                tasks.addTask { try await Self.follow(controller) }
                if let (web, access, server) = site {
                    tasks.addTask {
                        try await server.run(host: web.host, port: web.port) { port in
                            Terminal.line("web on \(Self.url(host: web.host, port: port, access: access))")
                        }
                    }
                }
                if let publisher {
                    tasks.addTask { try await publisher.run() }
                }
                try await tasks.next()
                tasks.cancelAll()
            }
        } catch {
            await controller.stop()
            throw error
        }
        await controller.stop()
    }

    /// Prints where the sync listens, once it does; throws when the sync stops on its own (its
    /// address taken, its change monitor failed).
    static func follow(_ controller: SyncController) async throws {
        var printed = false
        for await status in controller.statuses() {
            if !printed, let listening = status.listening {
                // One line on stdout, so scripts and tests learn the port.
                Terminal.line("listening on \(listening.host):\(listening.port)")
                printed = true
            }
            if case .stopped(let reason)? = status.lastFailure { throw SyncStopped(reason: reason) }
        }
    }

    /// Why the sync stopped by itself, worded as the failure it carries.
    struct SyncStopped: Error, CustomStringConvertible {
        let reason: String
        var description: String { reason }
    }

    /// Open on loopback or with `--http-public`; otherwise only with the viewing token (whose salt
    /// `--rotate-view-token` renews either way).
    private func webAccess(_ web: PeerAddress, groupSecret: [UInt8]) throws -> WebAccess {
        let open = Self.isLoopback(web.host) || httpPublic
        guard !open || rotateViewToken else { return .open }
        let token = try ViewingToken.current(groupSecret: groupSecret, store: storeOptions.directory, rotate: rotateViewToken)
        return open ? .open : .token(token)
    }

    static func isLoopback(_ host: String) -> Bool { PeerAddress(host: host, port: 0).isLoopback }

    /// The address to open: with the token when one is needed.
    static func url(host: String, port: Int, access: WebAccess) -> String {
        let base = "http://\(host.contains(":") ? "[\(host)]" : host):\(port)/"
        guard case .token(let token) = access else { return base }
        return base + "?token=" + token
    }
}
