import Foundation
import HyzerBench
import HyzerDomain
import HyzerKit
import HyzerSync
import HyzerWeb
import Testing

/// `/metrics` follows the Prometheus text exposition format (0.0.4) line by line.
@Suite struct MetricsTests {
    /// A sample line: name, optional labels, value, optional timestamp.
    static var sample: Regex<AnyRegexOutput> {
        Regex(
            #/^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\[\\"n])*")(,[a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\[\\"n])*")*,?\})? ([-+]?([0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?|Inf|NaN))( -?[0-9]+)?$/#
        )
    }
    static var type: Regex<(Substring, Substring, Substring)> {
        #/^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/#
    }
    static var help: Regex<AnyRegexOutput> { Regex(#/^# HELP [a-zA-Z_:][a-zA-Z0-9_:]* .*$/#) }

    /// Checks the grammar and that every sample belongs to the metric family typed above it;
    /// returns the samples by name with their labels.
    static func parse(_ text: String) -> [String: [String]] {
        var samples: [String: [String]] = [:]
        var family: (name: String, type: String)?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            if let match = line.wholeMatch(of: type) {
                family = (String(match.1), String(match.2))
            } else if line.wholeMatch(of: help) != nil {
                continue
            } else {
                #expect(line.wholeMatch(of: sample) != nil, "not a sample line: \(line)")
                let name = String(line.prefix { $0 != "{" && $0 != " " })
                let base = family?.name ?? ""
                let allowed = family?.type == "histogram" ? [base + "_bucket", base + "_sum", base + "_count"] : [base]
                #expect(allowed.contains(name), "\(name) outside its family \(base)")
                samples[name, default: []].append(String(line))
            }
        }
        #expect(text.hasSuffix("\n"))
        return samples
    }

    @Test func theExpositionParsesAndCountsWhatHappened() async throws {
        let served = try await ServedRound()
        _ = try served.replica.recordScore(round: served.round, player: "Ann", hole: 1, strokes: 3)
        // The store's change reaches the metrics within moments.
        var samples: [String: [String]] = [:]
        for _ in 0..<200 {
            samples = Self.parse(try await served.get("/metrics").body)
            if samples["hyzer_ops_ingested_total"]?.first?.hasSuffix(" 1") == true { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(samples["hyzer_ops_ingested_total"] == ["hyzer_ops_ingested_total 1"])
        #expect(samples["hyzer_ingest_latency_seconds_count"] == ["hyzer_ingest_latency_seconds_count 1"])
        #expect(samples["hyzer_ingest_latency_seconds_bucket"]?.last == #"hyzer_ingest_latency_seconds_bucket{le="+Inf"} 1"#)
        let held = try served.replica.versionVector().heads.values.reduce(0, +)
        #expect(samples["hyzer_ops_held"] == ["hyzer_ops_held \(held)"] || samples["hyzer_ops_held"] == ["hyzer_ops_held \(held).0"])
    }

    @Test func connectionOutcomesBecomeCountersWithBoundedReasons() {
        let metrics = WebMetrics()
        var good = ConnectionOutcome()
        good.bytesSent = 100
        good.bytesReceived = 40
        metrics.record(good)
        // Seventeen kinds of failure, one of them twice: more kinds than the label's bound.
        let kinds: [SyncFailure] = [
            .handshakeTimeout, .handshakeTimeout, .notAGroupMember, .handshakeRefused(.unexpectedMessage), .idleTimeout, .peerDead,
            .malformedStreamHeader, .frameAuthenticationFailed, .malformedMessage, .frameTooLarge(bytes: 2, limit: 1),
            .protocolViolation(.secondHello), .bundleTooLarge(limit: 1), .budgetExhausted, .deltaTooLarge(bytes: 2, limit: 1),
            .peerClosed(reason: "bye"), .connectionLost, .stalled, .storeFailed("disk"),
        ]
        for failure in kinds {
            var bad = ConnectionOutcome()
            bad.failure = failure
            metrics.record(bad)
        }
        let samples = Self.parse(metrics.exposition())
        #expect(samples["hyzer_peer_bytes_sent_total"] == ["hyzer_peer_bytes_sent_total 100"])
        #expect(samples["hyzer_peer_bytes_received_total"] == ["hyzer_peer_bytes_received_total 40"])
        #expect(samples["hyzer_peer_connections_ended_total"] == ["hyzer_peer_connections_ended_total \(kinds.count + 1)"])
        let failures = samples["hyzer_sync_failures_total"] ?? []
        #expect(failures.contains(#"hyzer_sync_failures_total{reason="handshakeTimeout"} 2"#), "\(failures)")
        #expect(failures.count == WebMetrics.reasonsMax + 1, "at most \(WebMetrics.reasonsMax) reasons and other")
        #expect(failures.contains { $0.hasPrefix(#"hyzer_sync_failures_total{reason="other"}"#) })
    }

    /// Peers connected and how far each lags: opened, told what the peer holds, closed.
    @Test func peersConnectedAndTheirLag() async throws {
        let served = try await ServedRound()
        let metrics = WebMetrics()
        try metrics.observe(served.replica, nowMilliseconds: 0)
        let local = try served.replica.versionVector()
        let peer = try #require(AuthorID(hex: String(repeating: "ab", count: 32)))
        let held = local.heads.values.reduce(UInt64(0), +)

        metrics.record(.opened(peer: peer))
        metrics.record(.peerHolds(peer: peer, VersionVector()))
        var samples = Self.parse(metrics.exposition())
        #expect(samples["hyzer_peers_connected"] == ["hyzer_peers_connected 1.0"])
        #expect(samples["hyzer_peer_lag_ops"] == [#"hyzer_peer_lag_ops{peer="\#(peer.short)"} \#(held).0"#])

        metrics.record(.peerHolds(peer: peer, local))
        samples = Self.parse(metrics.exposition())
        #expect(samples["hyzer_peer_lag_ops"] == [#"hyzer_peer_lag_ops{peer="\#(peer.short)"} 0.0"#])

        // The peer redials before its old connection is found dead, and the store gains an op
        // the peer lacks: it stays connected, one op behind, until its last connection closes.
        metrics.record(.opened(peer: peer))
        metrics.record(.closed(peer: peer))
        _ = try served.replica.recordScore(round: served.round, player: "Ben", hole: 2, strokes: 4)
        try metrics.observe(served.replica, nowMilliseconds: 0)
        let gained = try served.replica.versionVector().heads.values.reduce(UInt64(0), +) - held
        #expect(gained > 0)
        samples = Self.parse(metrics.exposition())
        #expect(samples["hyzer_peers_connected"] == ["hyzer_peers_connected 1.0"])
        #expect(samples["hyzer_peer_lag_ops"] == [#"hyzer_peer_lag_ops{peer="\#(peer.short)"} \#(gained).0"#])

        metrics.record(.closed(peer: peer))
        samples = Self.parse(metrics.exposition())
        #expect(samples["hyzer_peers_connected"] == ["hyzer_peers_connected 0.0"])
        #expect(samples["hyzer_peer_lag_ops"] == [#"hyzer_peer_lag_ops{peer="\#(peer.short)"} 0.0"#])
    }
}
