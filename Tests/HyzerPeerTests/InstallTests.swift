import Foundation
import HyzerTestSupport
import Testing

/// The binary works wherever it is copied, alone: the seeded courses are compiled in.
@Suite struct InstallTests {
    let directory = TemporaryDirectory("install")

    @Test func aCopiedBinaryStillKnowsTheSeededCourses() throws {
        let built = BinaryRunner(store: directory.path("store"))
        let lonely = directory.path("bin")
        try FileManager.default.createDirectory(at: lonely, withIntermediateDirectories: true)
        let copy = lonely.appendingPathComponent("hyzer-peer")
        try FileManager.default.copyItem(at: built.executable, to: copy)
        let cli = BinaryRunner(store: directory.path("store"), executable: copy)
        #expect(try cli.run("init", "--name", "alone").status == 0)
        let output = Data(try cli.run("course", "list", "--json").stdout.utf8)
        let courses = try #require(try JSONSerialization.jsonObject(with: output) as? [[String: Any]])
        #expect(courses.map { $0["name"] as? String } == ["DeLaveaga", "Maple Hill", "Morley Field"])
        #expect(courses.map { $0["totalPar"] as? Int } == [57, 58, 54])
    }
}
