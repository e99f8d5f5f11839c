import CoreMetrics
import HyzerDomain
import HyzerKit
import HyzerSync
import Prometheus
import Synchronization

/// The replica's health in Prometheus text format (`/metrics`), through swift-metrics with a
/// registry of our own (no process-wide bootstrap). Fed from `PeerServer.observer` for what
/// crossed connections, and from the store for what it holds and how fast ops arrived.
public final class WebMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory
    private let opsHeld: CoreMetrics.Gauge
    private let opsIngested: CoreMetrics.Counter
    private let connectionsEnded: CoreMetrics.Counter
    private let bytesReceived: CoreMetrics.Counter
    private let bytesSent: CoreMetrics.Counter
    private let ingestLatency: CoreMetrics.Timer
    let liveStreams: CoreMetrics.Meter
    /// The failure reasons seen so far, bounded so a peer cannot grow the label set.
    private let reasons = Mutex<Set<String>>([])
    private let peersConnected: CoreMetrics.Gauge
    /// Every connected peer's lag, measured against the store's vector as last looked at, and
    /// the gauge each connected peer's lag is recorded in.
    private let peers = Mutex<(lags: PeerLags, gauges: [AuthorID: CoreMetrics.Gauge])>((PeerLags(), [:]))

    /// At most this many distinct failure reasons get their own series; later ones count as "other".
    public static let reasonsMax = 16

    public init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets["hyzer_ingest_latency_seconds"] =
            [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 10_000, 60_000].map { .milliseconds($0) }
        self.factory = factory
        opsHeld = CoreMetrics.Gauge(label: "hyzer_ops_held", factory: factory)
        opsIngested = CoreMetrics.Counter(label: "hyzer_ops_ingested_total", factory: factory)
        connectionsEnded = CoreMetrics.Counter(label: "hyzer_peer_connections_ended_total", factory: factory)
        bytesReceived = CoreMetrics.Counter(label: "hyzer_peer_bytes_received_total", factory: factory)
        bytesSent = CoreMetrics.Counter(label: "hyzer_peer_bytes_sent_total", factory: factory)
        ingestLatency = CoreMetrics.Timer(label: "hyzer_ingest_latency_seconds", factory: factory)
        liveStreams = CoreMetrics.Meter(label: "hyzer_web_live_streams", factory: factory)
        peersConnected = CoreMetrics.Gauge(label: "hyzer_peers_connected", factory: factory)
        peersConnected.record(0)
    }

    /// What a live connection did (`PeerServer.progress`): peers connected, and how many ops
    /// each connected peer lacks of what this replica holds (`hyzer_peer_lag_ops{peer}`). The
    /// lags are kept by `PeerLags`, and only the gauges of lags that changed are recorded: a push
    /// to n peers costs n lags, not n² (docs/performance.md, "A tournament").
    public func record(_ progress: ConnectionProgress) {
        peers.withLock { peers in
            recordLags(peers.lags.record(progress), in: &peers.gauges)
            peersConnected.record(peers.lags.peers.count)
        }
    }

    /// Records the lags that changed, under the lock so the gauges follow the events' order. A
    /// peer no longer connected is recorded at 0, and its gauge is not kept.
    private func recordLags(_ changes: [PeerLags.Change], in gauges: inout [AuthorID: CoreMetrics.Gauge]) {
        for (peer, lag) in changes {
            let gauge = gauges[peer] ?? CoreMetrics.Gauge(label: "hyzer_peer_lag_ops", dimensions: [("peer", peer.short)], factory: factory)
            gauge.record(Int(clamping: lag ?? 0))
            gauges[peer] = lag == nil ? nil : gauge
        }
    }

    /// One ended peer connection (`PeerServer.observer`).
    public func record(_ outcome: ConnectionOutcome) {
        connectionsEnded.increment()
        bytesReceived.increment(by: outcome.bytesReceived)
        bytesSent.increment(by: outcome.bytesSent)
        guard let failure = outcome.failure else { return }
        let reason = reasons.withLock { known in
            let reason = failure.reason
            if known.contains(reason) { return reason }
            guard known.count < Self.reasonsMax else { return "other" }
            known.insert(reason)
            return reason
        }
        CoreMetrics.Counter(label: "hyzer_sync_failures_total", dimensions: [("reason", reason)], factory: factory).increment()
    }

    /// Looks at what the store gained since the last look: counts the new ops and records, for
    /// each, the time from its author's clock reading to now (clamped at zero; other devices'
    /// clocks are not trusted to be right, only to be bounded).
    public func observe(_ replica: Replica, nowMilliseconds: UInt64) throws {
        let vector = try replica.versionVector()
        let previous = peers.withLock { peers in
            let previous = peers.lags.store
            recordLags(peers.lags.storeRead(vector), in: &peers.gauges)
            return previous
        }
        opsHeld.record(Int(clamping: vector.heads.values.reduce(UInt64(0), +)))
        guard let previous else { return }
        for segment in try replica.delta(above: previous) {
            opsIngested.increment(by: segment.tails.count)
            for tail in segment.tails {
                let op = SignedOp(author: segment.author, sequence: 0, previousHash: [], tail: tail, signature: nil)
                guard let clock = op.clock else { continue }
                let milliseconds = nowMilliseconds > clock.physicalMilliseconds ? nowMilliseconds - clock.physicalMilliseconds : 0
                ingestLatency.recordMilliseconds(min(milliseconds, UInt64(Int64.max / 1_000_000)))
            }
        }
    }

    /// The exposition, Prometheus text format 0.0.4.
    public func exposition() -> String {
        registry.emitToString()
    }
}
