import Foundation
import Hummingbird
import HyzerDomain
import HyzerKit
import HyzerSync
import Logging
import ServiceLifecycle

/// `serve --http`: the replica's views as web pages, JSON and live events, read-only
/// (docs/web.md). Runs until its task is cancelled.
public struct WebServer: Sendable {
    public let replica: Replica
    public let access: WebAccess
    public let metrics: WebMetrics
    public let logger: Logger

    public init(replica: Replica, access: WebAccess, metrics: WebMetrics, logger: Logger) {
        self.replica = replica
        self.access = access
        self.metrics = metrics
        self.logger = logger
    }

    /// Serves on `host:port` until cancelled; `onListening` receives the bound port (port 0
    /// picks a free one).
    public func run(host: String, port: Int, onListening: @escaping @Sendable (Int) -> Void = { _ in }) async throws {
        let changes = ConnectionSignals()
        let monitor = try replica.changeMonitor()
        let templates = try WebTemplates()
        let site = WebSite(replica: replica, templates: templates, live: LiveEvents(changes: changes, metrics: metrics), metrics: metrics)
        let router = Router()
        router.addMiddleware {
            AccessMiddleware(access: access)
            ErrorPages(templates: templates)
        }
        site.addRoutes(to: router)
        let application = Application(
            router: router, configuration: .init(address: .hostname(host, port: port), serverName: nil),
            onServerRunning: { channel in onListening(channel.localAddress?.port ?? port) }, logger: logger)
        // Stopped by a graceful shutdown, never by cancelling the server under its connections.
        let services = ServiceGroup(configuration: .init(services: [application], logger: logger))
        try await withThrowingDiscardingTaskGroup { tasks in
            tasks.addTask { await changes.watch(monitor) }
            tasks.addTask { await observeStore(changes) }
            let serving = Task { try await services.run() }
            try await withTaskCancellationHandler {
                try await serving.value
            } onCancel: {
                Task { await services.triggerGracefulShutdown() }
            }
            tasks.cancelAll()
        }
    }

    /// Keeps the store's metrics current: once now, then after every change.
    private func observeStore(_ changes: ConnectionSignals) async {
        let signals = changes.storeChanges()
        observeOnce()
        for await _ in signals { observeOnce() }
    }

    private func observeOnce() {
        do {
            try metrics.observe(replica, nowMilliseconds: UInt64(max(0, Date().timeIntervalSince1970 * 1000)))
        } catch {
            logger.warning("metrics could not read the store", metadata: ["reason": "\(error)"])
        }
    }
}
