import ArgumentParser
import Foundation
import HyzerDomain
import HyzerEngine
import HyzerKit

struct CourseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "course", abstract: "Courses and the par of their holes.",
        subcommands: [List.self, Show.self, Add.self, SetPar.self, SetHoles.self, Rename.self, Delete.self])

    /// A course as `course list --json` and `course show --json` print it.
    struct Document: Encodable {
        let id: String
        let name: String
        let holeCount: Int
        let totalPar: Int
        let pars: [Int]
        let isSeeded: Bool

        init(_ course: Course) {
            id = course.id.lowercased
            name = course.name
            holeCount = course.holeCount
            totalPar = course.totalPar
            pars = course.pars
            isSeeded = course.isSeeded
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Courses by name.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let courses = try await storeOptions.openEngine().courses().map(Document.init)
            if output.json { return try JSONOutput.print(courses) }
            var table = Table([("Course", .left), ("Holes", .right), ("Par", .right), ("Id", .left)])
            for course in courses {
                table.add(
                    course.name + (course.isSeeded ? "" : " *"), "\(course.holeCount)", "\(course.totalPar)", String(course.id.prefix(8)))
            }
            print(table.render())
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "A course's holes and pars.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "The course's id, id prefix or name.") var course: String

        func run() async throws {
            let engine = try await storeOptions.openEngine()
            guard let course = try await engine.course(try await engine.course(matching: course)) else {
                throw ReplicaError.unknown(kind: "course", text: self.course)
            }
            if output.json { return try JSONOutput.print(Document(course)) }
            print("\(course.name) — \(course.holeCount) holes, par \(course.totalPar)\(course.deleted ? " (deleted)" : "")")
            var table = Table([("Hole", .right), ("Par", .right)])
            for (index, par) in course.pars.enumerated() { table.add("\(index + 1)", "\(par)") }
            print(table.render())
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a course; prints its id.")
        @OptionGroup var storeOptions: StoreOptions
        @Argument var name: String
        @Option(help: "The par of each hole, in order: 3,3,4,…") var pars: String

        func run() async throws {
            let values = try pars.split(separator: ",", omittingEmptySubsequences: false).map { text in
                guard let par = Int(text.trimmingCharacters(in: .whitespaces)) else {
                    throw CommandLineError.parNotANumber(String(text))
                }
                return par
            }
            print(try await storeOptions.openEngine().addCourse(named: name, pars: values))
        }
    }

    struct SetPar: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "set-par", abstract: "Change the par of one hole.")
        @OptionGroup var storeOptions: StoreOptions
        @Argument var course: String
        @Argument var hole: Int
        @Argument var par: Int

        func run() async throws {
            let engine = try await storeOptions.openEngine()
            try await engine.setPar(par, hole: hole, of: try await engine.course(matching: course))
        }
    }

    struct SetHoles: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-holes", abstract: "Change how many holes a course has (new holes are par 3; past rounds keep theirs).")
        @OptionGroup var storeOptions: StoreOptions
        @Argument var course: String
        @Argument var holes: Int

        func run() async throws {
            let engine = try await storeOptions.openEngine()
            try await engine.setHoleCount(holes, of: try await engine.course(matching: course))
        }
    }

    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Rename a course.")
        @OptionGroup var storeOptions: StoreOptions
        @Argument var course: String
        @Argument var name: String

        func run() async throws {
            let engine = try await storeOptions.openEngine()
            try await engine.renameCourse(try await engine.course(matching: course), to: name)
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a course (past rounds keep their copy of it).")
        @OptionGroup var storeOptions: StoreOptions
        @Argument var course: String

        func run() async throws {
            let engine = try await storeOptions.openEngine()
            try await engine.deleteCourse(try await engine.course(matching: course))
        }
    }
}
