import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit
import HyzerSync
import HyzerTestSupport
import Testing

@testable import HyzerSimulation

@Suite struct SimulatedFolderTests {
    func store(_ settings: FolderSettings, clock: VirtualClock) -> SimulatedFolderStore {
        SimulatedFolderStore(clock: clock, settings: settings, observers: [0, 1], random: SimulationRandom(seed: 5))
    }

    func quiet() -> FolderSettings {
        var settings = FolderSettings()
        settings.minDelaySeconds = 10
        settings.maxDelaySeconds = 10
        settings.lateRate = 0
        settings.partialRate = 0
        settings.duplicateRate = 0
        settings.temporaryFileRate = 0
        return settings
    }

    @Test func filesReachOtherDevicesLate() throws {
        let clock = VirtualClock()
        let folder = store(quiet(), clock: clock)
        try folder.write("g/a/x.hzb", [1, 2, 3], writer: 0)
        #expect(folder.list("g/a", observer: 0).map(\.name) == ["x.hzb"])
        #expect(folder.list("g/a", observer: 1).isEmpty)
        #expect(folder.list("g", observer: 1).isEmpty)
        clock.advance(to: clock.now + 10_000)
        #expect(folder.list("g", observer: 1).map(\.name) == ["a"])
        #expect(try folder.read("g/a/x.hzb", observer: 1) == [1, 2, 3])
    }

    @Test func halfWrittenFilesShowAPrefixFirst() throws {
        var settings = quiet()
        settings.partialRate = 1
        let clock = VirtualClock()
        let folder = store(settings, clock: clock)
        let bytes = Array(repeating: UInt8(7), count: 100)
        try folder.write("g/a/x.hzb", bytes, writer: 0)
        clock.advance(to: clock.now + 5_000)
        let partial = try folder.read("g/a/x.hzb", observer: 1)
        #expect(partial.count < bytes.count)
        #expect(Array(bytes.prefix(partial.count)) == partial)
        #expect(folder.counters.halfWrittenReads == 1)
        clock.advance(to: clock.now + 5_000)
        #expect(try folder.read("g/a/x.hzb", observer: 1) == bytes)
    }

    @Test func duplicatesArriveWithANewModificationTime() throws {
        var settings = quiet()
        settings.duplicateRate = 1
        let clock = VirtualClock()
        let folder = store(settings, clock: clock)
        try folder.write("g/a/x.hzb", [9], writer: 0)
        clock.advance(to: clock.now + 10_000)
        let first = try #require(folder.list("g/a", observer: 1).first)
        clock.advance(to: clock.now + 700_000)
        let second = try #require(folder.list("g/a", observer: 1).first)
        #expect(first.size == second.size)
        #expect(first.modified != second.modified)
    }

    @Test func aWriterKilledMidWriteLeavesItsTemporaryFile() throws {
        let clock = VirtualClock()
        let folder = store(quiet(), clock: clock)
        folder.failNextWrite(of: 0)
        #expect(throws: FolderError.self) { try folder.write("g/a/x.hzb", Array(repeating: 1, count: 50), writer: 0) }
        clock.advance(to: clock.now + 10_000)
        let names = folder.list("g/a", observer: 1).map(\.name)
        #expect(names == [".x.hzb.0.tmp"])
        try folder.write("g/a/x.hzb", [1], writer: 0)
        #expect(folder.list("g/a", observer: 0).map(\.name) == [".x.hzb.0.tmp", "x.hzb"])
    }

    @Test func folderSyncConvergesThroughEveryFolderFault() throws {
        var settings = FolderSettings()
        settings.partialRate = 0.5
        settings.duplicateRate = 0.5
        settings.temporaryFileRate = 0.5
        settings.lateRate = 0.2
        let clock = VirtualClock()
        let folder = store(settings, clock: clock)
        let directory = TemporaryDirectory("sim-folder")
        var random = SimulationRandom(seed: 3)
        let group = GroupMembership(id: UUID(hashPrefix: random.bytes(16)), secret: random.bytes(32))
        let replicas = try (0..<2).map { index in
            let replica = try Replica.create(
                at: directory.path("r\(index)"), name: "r\(index)", kind: .phone, owner: "P\(index)",
                clock: DeviceClock(world: clock, model: .accurate(origin: clock.now)), keys: SigningKeyPair(seed: random.bytes(32)))
            try replica.join(group)
            return replica
        }
        for round in 0..<40 {
            if round < 10 { try replicas[round % 2].addPlayer(name: "Player \(round)") }
            for (index, replica) in replicas.enumerated() {
                _ = try FolderSync(replica: replica, folder: SimulatedFolder(store: folder, observer: index)).run()
            }
            clock.advance(to: clock.now + 120_000)
        }
        #expect(try replicas[0].digest() == replicas[1].digest())
        #expect(try replicas[0].players().count == 12)
    }
}
