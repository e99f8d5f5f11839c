import Foundation
import HyzerTestSupport
import Testing

/// `course set-holes` through the binary: pars kept, new holes par 3, past rounds unchanged.
@Suite struct CourseHolesCLITests {
    let directory = TemporaryDirectory("course-holes")
    var cli: BinaryRunner { BinaryRunner(store: directory.path("phone")) }

    @Test func holesAreAddedAtParThreeAndRoundsKeepTheirSnapshot() throws {
        _ = try cli.ok("init", "--name", "phone", "--owner", "Ann")
        let course = try cli.ok("course", "add", "Tiny", "--pars", "4,5,3")
        let round = try cli.ok("round", "start", "--course", "Tiny", "--players", "Ann")
        #expect(try cli.ok("course", "set-holes", "Tiny", "5") == "")
        #expect(
            try cli.ok("course", "show", "Tiny", "--json")
                == #"{"holeCount":5,"id":"\#(course)","isSeeded":false,"name":"Tiny","pars":[4,5,3,3,3],"totalPar":18}"#)
        #expect(try cli.ok("round", "show", round, "--json").contains(#""holeCount":3"#), "the round keeps its three holes")
        _ = try cli.ok("course", "set-par", "Tiny", "5", "4")
        _ = try cli.ok("course", "set-holes", "Tiny", "2")
        #expect(try cli.ok("course", "show", "Tiny", "--json").contains(#""pars":[4,5]"#))
        let refused = try cli.run("course", "set-par", "Tiny", "3", "4")
        #expect(refused.stderr == "error: hole 3 does not exist: this course has holes 1 to 2\n")
        _ = try cli.ok("course", "set-holes", "Tiny", "5")
        #expect(try cli.ok("course", "show", "Tiny", "--json").contains(#""pars":[4,5,3,3,4]"#), "a hole it had before keeps its par")
        #expect(try cli.ok("round", "start", "--course", "Tiny", "--players", "Ann").count == 36)
        #expect(try cli.ok("round", "show", "latest", "--json").contains(#""holeCount":5"#))
        for holes in ["0", "37"] {
            let result = try cli.run("course", "set-holes", "Tiny", holes)
            #expect(result.status == 1)
            #expect(result.stderr == "error: a course has 1 to 36 holes, not \(holes)\n")
        }
        #expect(try cli.ok("verify").hasSuffix("intact"))
    }
}
