import Foundation
import HyzerDomain
import Testing

@Suite("Seeded courses")
struct SeededCoursesTests {
    /// The shape of `Resources/SeededCourses.json`.
    struct SeedFile: Decodable, Equatable {
        struct Hole: Decodable, Equatable {
            let number: Int
            let par: Int
        }
        let name: String
        let holes: [Hole]
    }

    static let resourceURL = URL(filePath: #filePath)
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .appending(path: "Resources/SeededCourses.json")

    @Test("the embedded data equals Resources/SeededCourses.json exactly")
    func matchesResource() throws {
        let file = try JSONDecoder().decode([SeedFile].self, from: Data(contentsOf: Self.resourceURL))
        let embedded = SeededCourses.all.map { course in
            SeedFile(
                name: course.name,
                holes: course.pars.enumerated().map { SeedFile.Hole(number: $0.offset + 1, par: $0.element) }
            )
        }
        #expect(embedded == file)
    }

    @Test(
        "names, hole counts and total pars",
        arguments: [("Morley Field", 54), ("Maple Hill", 58), ("DeLaveaga", 57)] as [(String, Int)]
    )
    func totals(name: String, totalPar: Int) throws {
        let course = try #require(SeededCourses.all.first { $0.name == name })
        #expect(course.holeCount == 18)
        #expect(course.totalPar == totalPar, "\(name) totals \(course.totalPar), expected \(totalPar)")
    }

    @Test("ids are UUIDv5 of the fixed namespace and the name, stable across versions")
    func ids() {
        #expect(SeededCourses.all.map(\.name) == ["Morley Field", "Maple Hill", "DeLaveaga"])
        #expect(
            SeededCourses.all.map { $0.id.uuidString.lowercased() } == [
                "d703dc0e-0790-5415-9ae5-a193e9fecc8e", "7b93437c-c8a3-5fab-8b5f-75ba283e69d0",
                "80d039e7-77ea-57c8-a10c-cfcaa59bb8ce",
            ])
        for course in SeededCourses.all {
            #expect(course.id == UUID(v5: course.name, namespace: SeededCourses.namespace))
            #expect(course.isSeeded)
            #expect(!course.deleted)
            #expect(course.createdAt == .zero)
        }
    }

    @Test("the namespace is UUIDv5(DNS, \"seeded-courses.hyzer-peer\")")
    func namespace() {
        #expect(SeededCourses.namespace == UUID(v5: "seeded-courses.hyzer-peer", namespace: UUIDv5Tests.dns))
    }
}
