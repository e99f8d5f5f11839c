import Foundation
import HyzerDomain
import HyzerKit
import Synchronization
import Testing

@testable import HyzerSync

/// docs/performance.md, "Live changes": `serve` reads the delta its peers lack on the writer's
/// thread as each commit lands (`StoreChangeMonitor.report`, `ConnectionSignals.watch`), and a
/// connection whose peer held the store as it was sends it with no store work of its own.
@Suite struct WriterDeltaTests {
    /// What the monitor's report read after each of the writer's commits.
    struct Reads: Sendable {
        /// Above the store as the previous report left it.
        var exact: [LogDelta?] = []
        /// Above the store two commits back, allowed one op and allowed two.
        var tooMany: [LogDelta?] = []
        var enough: [LogDelta?] = []
        /// The store's vector before the reports and after each of them, newest last.
        var vectors: [VersionVector]
    }

    final class Shared: Sendable {
        let reads = Mutex(Reads(vectors: []))
    }

    /// Runs `monitor`'s reports in a task, reading after each commit of `replica`'s writer; returns
    /// once the reports have started (commits are made until one is reported).
    func reporting(_ replica: Replica, into shared: Shared) async throws -> Task<Void, Never> {
        let monitor = try replica.changeMonitor()
        shared.reads.withLock { $0 = Reads(vectors: [(try? replica.versionVector()) ?? VersionVector()]) }
        let task = Task {
            await monitor.report { commit in
                guard let commit else { return }
                shared.reads.withLock { reads in
                    let above = reads.vectors.last ?? VersionVector()
                    let delta = try? commit.replica.deltaRead(above: above, opsMax: 64, after: commit)
                    reads.exact.append(delta)
                    // Two reported commits back: exactly two ops.
                    if reads.vectors.count >= 3 {
                        let twoBack = reads.vectors[reads.vectors.count - 2]
                        reads.tooMany.append(try? commit.replica.deltaRead(above: twoBack, opsMax: 1, after: commit))
                        reads.enough.append(try? commit.replica.deltaRead(above: twoBack, opsMax: 2, after: commit))
                    }
                    if let delta { reads.vectors.append(delta.vector) }
                }
            }
        }
        var warmUp = 0
        while shared.reads.withLock({ $0.exact.isEmpty }) {
            warmUp += 1
            try replica.addPlayer(name: "Warm-up \(warmUp)")
            try await Task.sleep(for: .milliseconds(10))
        }
        return task
    }

    @Test func theDeltaReadAsTheWriterCommitsIsTheOneAReaderReadsAndAPeerTakesIt() async throws {
        let world = LiveWorld()
        let a = try world.replica("a", owner: "Ann")
        let b = try world.replica("b")
        // Past a hash checkpoint (every 64th op keeps its whole hash): the previous head's hash,
        // cut once a later op is written, is rebuilt from there unless a read kept it.
        for n in 0..<70 { try a.addPlayer(name: "Early \(n)") }
        let shared = Shared()
        let task = try await reporting(a, into: shared)
        defer { task.cancel() }
        _ = try b.ingest(a.delta(above: b.versionVector()))

        var readOnTheWriter = 0
        for n in 0..<40 where readOnTheWriter < 6 {
            let (before, reported) = try #require(shared.reads.withLock { reads in reads.vectors.last.map { ($0, reads.exact.count) } })
            try a.addPlayer(name: "Live \(n)")
            let reader = try a.deltaRead(above: before)
            // The report runs on the writer's thread before the command returns, unless the
            // monitor's thread saw the commit first (through inotify): it then reports with no
            // commit, and the connections read for themselves.
            guard let read = shared.reads.withLock({ $0.exact.count > reported ? $0.exact.last ?? nil : nil }) else {
                _ = try b.ingest(reader.segments)
                shared.reads.withLock { $0.vectors.append(reader.vector) }
                continue
            }
            readOnTheWriter += 1
            #expect(read.segments.map { $0.encoded() } == reader.segments.map { $0.encoded() })
            #expect(read.vector == reader.vector, "the writer's vector holds the commit it follows")
            #expect(read.segments.reduce(0) { $0 + $1.tails.count } == 1)
            // The segment's previous hash is the peer's head's whole hash: the peer takes it.
            let report = try b.ingest(read.segments)
            #expect(report.opsApplied == 1)
            #expect(report.rejected.isEmpty)
        }
        #expect(readOnTheWriter == 6)
        #expect(try b.versionVector().entry(a.author) == a.versionVector().entry(a.author))

        // More ops above the peer than allowed: nothing is read on the writer's thread.
        let (tooMany, enough) = shared.reads.withLock { ($0.tooMany, $0.enough) }
        #expect(!tooMany.isEmpty && tooMany.allSatisfy { $0 == nil })
        #expect(!enough.isEmpty && enough.allSatisfy { $0.map { $0.segments.reduce(0) { $0 + $1.tails.count } } == 2 })
    }

    @Test func theWriterReadsWhatPeersWillAskForAndBacksOffWhenNoConnectionTakesIt() async throws {
        let world = LiveWorld()
        let a = try world.replica("a", owner: "Ann")
        let signals = ConnectionSignals()
        let mailbox = signals.subscribe(ticks: .never) { _, handled in handled() }
        defer { signals.unsubscribe(mailbox) }
        let monitor = try a.changeMonitor()
        let watching = Task { await signals.watch(monitor) }
        defer { watching.cancel() }
        let bytesMax = 1 << 20
        func request(above vector: VersionVector) -> DeltaRequest { DeltaRequest(above: vector, group: world.group.id, bytesMax: bytesMax) }
        func readerDelta(above vector: VersionVector) throws -> Delta {
            try a.deltaBundles(above: vector, group: world.group, bytesMax: bytesMax)
        }

        // No connection has shared a delta yet: the writer reads nothing, and a connection reads.
        var commits = 0
        func commit() throws -> VersionVector {
            commits += 1
            try a.addPlayer(name: "Player \(commits)")
            return try a.versionVector()
        }
        var holds = try a.versionVector()
        var vector = try commit()
        while signals.changesPublished == 0 { vector = try commit() }  // the reports have started
        #expect(signals.sharedDelta(request(above: holds)) == nil)
        let read = try signals.deltaAfterLatestChange(request(above: holds)) { try readerDelta(above: holds) }
        #expect(read.vector == vector)
        holds = vector

        // From then on, each commit is read on the writer's thread for the peers that took that.
        for _ in 0..<3 {
            let before = holds
            vector = try commit()
            let prepared = try #require(signals.sharedDelta(request(above: before)), "read as the writer committed")
            #expect(prepared.bundles == (try readerDelta(above: before)).bundles)
            #expect(prepared.vector == vector)
            #expect(prepared.ops == 1)
            holds = vector
        }

        // A read no connection takes: the next commit reads none, the one after reads again (above
        // what the last one read brought its peers to), then two commits pass, then four.
        let untaken = holds
        holds = try commit()  // read, not taken
        _ = try commit()
        #expect(signals.sharedDelta(request(above: holds)) == nil, "one commit passes")
        _ = try commit()  // read again, above `holds`: not taken either
        let secondUntaken = try a.versionVector()
        _ = try commit()
        _ = try commit()
        #expect(signals.sharedDelta(request(above: secondUntaken)) == nil, "two commits pass")
        vector = try commit()
        let again = try #require(signals.sharedDelta(request(above: secondUntaken)), "read again after two")
        #expect(again.vector == vector)
        #expect(again.ops == 3)
        // Taken: the backoff is over, and the next commit is read.
        let before = vector
        vector = try commit()
        #expect(signals.sharedDelta(request(above: before))?.vector == vector)
        #expect(signals.sharedDelta(request(above: untaken)) == nil, "a delta is kept for the latest change only")
    }
}
