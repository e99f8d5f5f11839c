import Foundation
import HyzerKit
import HyzerTestSupport
import Testing

@testable import HyzerSync

/// A failing store (docs/bucket-sync.md, "A hostile or failing bucket"): what SeaweedFS cannot be
/// made to answer, a `FaultProxy` in front of it answers for the requests each test picks.
@Suite struct BucketFaultTests {
    static let enabled = BucketSyncTests.enabled

    /// 503 SlowDown and a request that is never answered are tried again after a back-off, and
    /// the sync completes; SlowDown on every try fails the sync with one sentence, and the next
    /// sync completes. Nothing is lost.
    @Test(.enabled(if: enabled, Comment(rawValue: SeaweedFS.install)))
    func slowDownAndAStallBackOffAndTheSyncCompletesWithNothingLost() throws {
        let store = try SeaweedFS.ready()
        let proxy = try FaultProxy(upstreamPort: store.port)
        let prefix = "faults-\(UUID().uuidString.prefix(8).lowercased())"
        let ann = try Peer("ann", keySeed: 151)
        let ben = try Peer("ben", keySeed: 152, start: baseTime + 10)
        let devices = try [ann, ben].map { (peer: $0, folder: try store.folder(prefix, endpoint: proxy.endpoint, timeout: .seconds(2))) }
        try BucketSyncTests.syncUntilQuiet(devices)

        // Two SlowDowns on the writer's PUTs: each is tried again, and the sync writes all.
        try ann.replica.addPlayer(name: "Kim")
        proxy.inject(.slowDown, times: 2) { method, _ in method == "PUT" }
        let written = try BucketSyncTests.sync(ann, devices[0].folder)
        #expect(proxy.faultsServed == 2)
        #expect(written.report.bundlesWritten == 1 && written.requests == 3 + 2, "\(written)")

        // The reader's GET of the bundle stalls past the client's 2 s deadline: tried again, read.
        proxy.inject(.stall) { method, path in method == "GET" && path.hasSuffix(".hzb") }
        let started = Date()
        let read = try BucketSyncTests.sync(ben, devices[1].folder)
        #expect(proxy.faultsServed == 3)
        #expect(Date().timeIntervalSince(started) >= 2)
        #expect(read.report.opsIngested == 1 && read.requests == 4 + 1, "\(read)")
        #expect(try ben.replica.players().map(\.displayName).contains("Kim"))

        // SlowDown on every try of the listing: the sync stops with one sentence, having recorded
        // nothing it did not do, and the next sync completes.
        try ben.replica.addPlayer(name: "Lou")
        proxy.inject(.slowDown, times: BucketClient.attempts) { method, path in method == "GET" && path.contains("list-type=2") }
        #expect {
            try ben.sync(devices[1].folder)
        } throws: { error in
            "\(error)" == "the bucket answered 503 SlowDown: Please reduce your request rate.; try again later"
        }
        #expect(proxy.faultsServed == 3 + BucketClient.attempts)
        try BucketSyncTests.syncUntilQuiet(devices)
        #expect(try ann.replica.players().map(\.displayName).contains("Lou"))
    }
}
