import Foundation
import HyzerKit
import HyzerSync
import HyzerTestSupport
import Testing

extension LiveSyncTests {
    /// The heal of docs/sync-protocol.md, "Live connections heal", through the real binary: two
    /// `serve` processes stay connected while the phone's wall clock runs five hours behind, so it
    /// holds aside every segment the laptop writes and its junk cap evicts some; once its clock is
    /// put right it holds everything within seconds, on the same connection, nobody restarting
    /// anything. The phone's clock is moved by a library loaded into its process
    /// (Tests/Fixtures/clock-shift), not by anything in the shipped binary.
    @Suite struct ClockPutRightTests {
        /// `pendingSegments`' cap (docs/store.md, "Junk caps").
        static let segmentsWaiting = 1_000
        /// Members and the ops each writes: more segments than the cap.
        static let members = 24
        static let holes = 48

        /// Builds the clock-shifting library into `directory` with the toolchain's C compiler.
        static func buildClockShift(into directory: TemporaryDirectory) throws -> URL {
            let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Fixtures/clock-shift/clock-shift.c")
            let library = directory.path("libclock-shift.so")
            let compiler = Process()
            compiler.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            compiler.arguments = ["clang", "-shared", "-fPIC", "-O2", "-o", library.path, source.path, "-ldl", "-lpthread"]
            try compiler.run()
            compiler.waitUntilExit()
            try #require(compiler.terminationStatus == 0, "clang could not build \(source.path)")
            return library
        }

        @Test func aClockBehindPhoneStaysConnectedAndConvergesOnceItsClockIsPutRight() async throws {
            let world = LiveWorld()
            let laptop = try world.replica("laptop", owner: "Ann", kind: .laptop)
            let phone = try world.replica("phone", owner: "Ben")
            let shift = world.directory.path("clock-shift")
            try Data("-18000\n".utf8).write(to: shift)
            let library = try Self.buildClockShift(into: world.directory)

            let laptopServe = try ServeProcess(world, store: "laptop")
            defer { laptopServe.stop() }
            let phoneServe = try ServeProcess(
                world, store: "phone", peers: [laptopServe.address],
                environment: ["LD_PRELOAD": library.path, "CLOCK_SHIFT_FILE": shift.path])
            defer { phoneServe.stop() }
            #expect(try await eventually(seconds: 20) { try phone.versionVector() == laptop.versionVector() }, "the first sync")

            // Members score hole by hole, as a tournament does; each op reaches the laptop's store
            // as it is written (a bundle of the member's, imported), and the laptop's `serve` pushes
            // it on to the phone as a segment of its own. The phone holds the first op of each
            // member for its clock, and the rest above it, past the cap of that table.
            let members = try (0..<Self.members).map { try world.replica("member-\($0)", owner: "Member \($0)") }
            for hole in 0..<Self.holes {
                for (index, member) in members.enumerated() {
                    try member.addPlayer(name: "Player \(index)-\(hole)")
                    _ = try BundleFiles.import(try BundleFiles.export(member), into: laptop)
                    try await Task.sleep(for: .milliseconds(2))
                }
            }
            let atCap = try await eventually(seconds: 30) { try phone.segmentsAside().pending == Self.segmentsWaiting }
            let aside = try phone.segmentsAside()
            #expect(atCap, "the phone has \(aside) segments aside\n\(phoneServe.log.output)")
            #expect(aside.held == Self.members, "the first op of each member waits for the phone's clock")
            let holdings = try phone.holdings().vector
            let laptopHolds = try laptop.versionVector()
            #expect(members.contains { holdings[$0.author] < laptopHolds[$0.author] }, "the cap evicted some of what was sent")

            // The phone's clock is put right; nothing else changes.
            try Data("0\n".utf8).write(to: shift)
            let putRight = ContinuousClock.now
            let converged = try await eventually(seconds: 30) { try phone.digest() == laptop.digest() }
            let took = ContinuousClock.now - putRight
            print("the phone held every op \(took) after its clock was put right")
            #expect(converged, "the phone still lacks ops\n\(phoneServe.log.output)\n\(laptopServe.log.output)")
            // Within two heartbeats (5 s each): one to apply what was held, the next to bring what
            // was evicted; more under a loaded machine is still a failure of "within seconds".
            #expect(took < .seconds(15))
            #expect(try phone.segmentsAside() == (pending: 0, held: 0))
            #expect(phoneServe.process.isRunning && laptopServe.process.isRunning, "nobody restarted anything")
            #expect(!phoneServe.log.output.contains("closed"), "the connection was never closed: \(phoneServe.log.output)")
        }
    }
}
