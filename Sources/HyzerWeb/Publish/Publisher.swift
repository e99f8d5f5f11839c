import Foundation
import HyzerCrypto
import HyzerKit
import HyzerSync
import Logging
import Synchronization

/// `serve --publish s3://BUCKET/PREFIX`: writes the read-only web side as static files into a
/// bucket after each change of the store, at most once a second (`PublishSchedule`), so a static
/// host or a CDN in front of the bucket serves the leaderboard to any number of spectators
/// (docs/bucket-sync.md, "Publishing the leaderboard").
///
/// Published files are rewritten as the standings change, so they are plain PUTs (never
/// `If-None-Match`), each with a `Content-Type` and a short `Cache-Control`. Only a file whose
/// bytes changed since it was last written is written: the hash of each is remembered, so a
/// change that alters no page costs no request. A publish that fails (the store down) is tried
/// again after a back-off; it never stops the sync or the server beside it.
public final class Publisher: Sendable {
    /// How long a browser or a CDN may serve a published file before asking again.
    public static let cacheControl = "public, max-age=5"
    /// Files written at once.
    static let parallelWrites = 8

    public let replica: Replica
    public let client: BucketClient
    public let logger: Logger
    private let counts = Mutex(Counts())

    /// What was published so far.
    public struct Counts: Sendable, Equatable {
        /// Publishes that wrote every changed file.
        public var publishes = 0
        /// Files written (PUTs that succeeded).
        public var filesWritten = 0
        /// Publishes that failed, to be tried again.
        public var failures = 0
    }

    public init(replica: Replica, client: BucketClient, logger: Logger) {
        self.replica = replica
        self.client = client
        self.logger = logger
    }

    /// What was published so far.
    public var published: Counts { counts.withLock { $0 } }

    /// Publishes now, then after every change, until cancelled. Throws only when the store's
    /// change monitor cannot start.
    public func run() async throws {
        let changes = ConnectionSignals()
        let monitor = try replica.changeMonitor()
        // Subscribed before the first publish, so a change during it is not missed.
        let signals = changes.storeChanges()
        var site = try StaticSite()
        await withDiscardingTaskGroup { tasks in
            tasks.addTask { await changes.watch(monitor) }
            let clock = ContinuousClock()
            let start = clock.now
            var schedule = PublishSchedule()
            var written: [String: [UInt8]] = [:]
            var iterator = signals.makeAsyncIterator()
            loop: while !Task.isCancelled {
                switch schedule.next(at: clock.now - start) {
                case .publish:
                    let outcome = await publish(&site, written: &written)
                    schedule.finished(outcome, at: clock.now - start)
                    if outcome == .failed {
                        logger.warning(
                            "publishing failed; trying again later",
                            metadata: ["bucket": "\(client.location)", "failures": "\(schedule.failures)"])
                    }
                case .wait(let delay):
                    guard (try? await Task.sleep(for: delay)) != nil else { break loop }
                case .idle:
                    guard await iterator.next() != nil else { break loop }
                    schedule.changed()
                }
            }
            tasks.cancelAll()
        }
    }

    /// Renders the site and writes each file whose bytes changed since it was written (its hash
    /// in `written`); `.failed` when the store could not be read or any write failed (the files
    /// written are remembered, the others tried again at the next publish).
    func publish(_ site: inout StaticSite, written: inout [String: [UInt8]]) async -> PublishSchedule.Outcome {
        let files: [StaticSite.File]
        do {
            files = try site.render(replica)
        } catch {
            logger.warning("publishing could not read the store", metadata: ["reason": "\(error)"])
            return .failed
        }
        let changed = files.map { (file: $0, hash: Blake2b.hash256($0.bytes)) }.filter { written[$0.file.name] != $0.hash }
        var failed = false
        var writes = 0
        for start in stride(from: 0, to: changed.count, by: Self.parallelWrites) {
            let batch = changed[start..<min(start + Self.parallelWrites, changed.count)]
            let results = await withTaskGroup(of: (name: String, hash: [UInt8]?).self) { tasks in
                for (file, hash) in batch {
                    tasks.addTask { [self] in (file.name, await write(file) ? hash : nil) }
                }
                return await tasks.reduce(into: []) { $0.append($1) }
            }
            for (name, hash) in results {
                if let hash {
                    written[name] = hash
                    writes += 1
                } else {
                    failed = true
                }
            }
            // The pages that link to others come last: stop before them when a linked file failed.
            if failed { break }
        }
        counts.withLock { counts in
            counts.filesWritten += writes
            if failed { counts.failures += 1 } else { counts.publishes += 1 }
        }
        if !failed, writes > 0 { logger.debug("published", metadata: ["files": "\(writes)", "bucket": "\(client.location)"]) }
        return failed ? .failed : writes > 0 ? .wrote : .unchanged
    }

    /// One file written under the prefix; `false` when the store refused it after its retries.
    private func write(_ file: StaticSite.File) async -> Bool {
        let key = client.location.prefix.isEmpty ? file.name : client.location.prefix + "/" + file.name
        do {
            try await client.replace(key: key, bytes: file.bytes, contentType: file.contentType, cacheControl: Self.cacheControl).get()
            return true
        } catch {
            logger.debug("a published file was not written", metadata: ["key": "\(key)", "reason": "\(error)"])
            return false
        }
    }
}
