import Foundation
import HyzerTestSupport
import Testing

/// `import --udisc` and `export --udisc` through the binary, on real exports of each shape
/// (Tests/Fixtures/udisc/README.md) and on files whose totals do not add up.
@Suite struct UDiscCLITests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/udisc")
    static let files = ["old-header-spencerhwilliams.csv", "new-header-bikkjestykket.csv", "finnish-header-sonikki.csv"]
        .map { fixtures.appendingPathComponent($0).path }
    let directory = TemporaryDirectory("udisc-cli")
    var cli: BinaryRunner { BinaryRunner(store: directory.path("phone")) }

    @Test func everyShapeImportsOnceAndAnExportReimportsToTheSameDigest() throws {
        _ = try cli.ok(["init", "--name", "phone", "--owner", "Spence"])
        let courses = [
            "Scarlett Woods Disc Golf Course · Main", "Centennial Park DGC · Red (Short) Tees - Summer 2021",
            "White Spruce Park · Red Tees (Short)",
            "Marilyn Bell Park Disc Golf Course · Main", "Bayview · Bayview - Right Deadly", "Talin Frisbeegolfpuisto · Tali 2022",
            "Oittaan Ulkoilualue - Camping · Oittaa Frisbeegolf Espoo Camping (talvi 2022)", "Siltamäki · Väylät 4 -18",
            "Puolarmaari · Standard",
            "Grani DiscGolfPark · Grani 2x9", "Bikkjestykket · Høst 2023",
        ]
        // Rounds are imported oldest first across the files; Spence, the owner, is matched by name.
        let players = [
            "Cvance", "Pink Leopard", "Esko", "Timi", "Sami + Tume + Esko", "Sami", "Tume", "bäkkäriE", "Player 1", "Player 2", "Player 3",
        ]
        let expected =
            (courses.map { "created course \($0)" } + players.map { "created player \($0)" } + ["12 rounds imported, 0 already held"])
            .joined(separator: "\n")
        #expect(try cli.ok(["import", "--udisc"] + Self.files) == expected)
        let imported = try cli.digest()
        #expect(try cli.ok(["import", "--udisc"] + Self.files) == "0 rounds imported, 12 already held")
        #expect(try cli.digest() == imported, "importing the same files again adds nothing")

        // Partial rounds: zeros are holes not played, and the round was finished by force.
        let history = try cli.ok(["history", "--json", "--standings"])
        #expect(history.contains(#""formatted":"+5","holesPlayed":13,"name":"Cvance""#))
        #expect(history.contains(#""formatted":"+23","holesPlayed":12,"name":"Timi""#))
        #expect(history.contains(#""formatted":"-6","holesPlayed":12,"name":"Player 1""#))

        let export = directory.path("export.csv").path
        #expect(try cli.ok(["export", "--udisc", export]) == "wrote 38 rows to \(export)")
        let text = try String(contentsOfFile: export, encoding: .utf8)
        #expect(text.hasPrefix("PlayerName,CourseName,LayoutName,StartDate,EndDate,Total,+/-,RoundRating,Hole1,"))
        #expect(text.contains("\nCvance,Centennial Park DGC,Red (Short) Tees - Summer 2021,"))
        #expect(try cli.ok(["import", "--udisc", export]) == "0 rounds imported, 12 already held")
        #expect(try cli.digest() == imported, "an export of an imported file re-imports to the same op set")
    }

    static let header = "PlayerName,CourseName,LayoutName,Date,Total,+/-,Hole1,Hole2,Hole3"
    static let par = "Par,Tiny,Main,2024-05-01 10:00,9,,3,3,3"

    static let refusals: [(name: String, text: String, error: String)] = [
        (
            "total.csv", [header, par, "Ann,Tiny,Main,2024-05-01 10:00,10,0,3,3,3"].joined(separator: "\n"),
            "row 3 (Ann) says Total 10 but its holes add up to 9"
        ),
        (
            "plusminus.csv", [header, par, "Ann,Tiny,Main,2024-05-01 10:00,9,1,3,3,3"].joined(separator: "\n"),
            "row 3 (Ann) says +/- 1 but its holes are E against the par of the holes played"
        ),
        (
            "parless.csv", [header, "Ann,Tiny,Main,2024-05-01 10:00,9,0,3,3,3"].joined(separator: "\n"),
            "row 2 has no Par row above it for Tiny (Main) on 2024-05-01 10:00"
        ),
        (
            "strokes.csv", [header, par, "Ann,Tiny,Main,2024-05-01 10:00,18,9,12,3,3"].joined(separator: "\n"),
            "row 3 (Ann) has 12 strokes on hole 1; a hole's score is 1 to 10 strokes"
        ),
        (
            "letters.csv", [header, par, "Ann,Tiny,Main,2024-05-01 10:00,9,0,3,x,3"].joined(separator: "\n"),
            "row 3 has 'x' as hole 2, which is not a whole number"
        ),
        (
            "twice.csv",
            [header, par, "Ann,Tiny,Main,2024-05-01 10:00,9,0,3,3,3", "ann ,Tiny,Main,2024-05-01 10:00,9,0,3,3,3"].joined(separator: "\n"),
            "row 4 names ann a second time in the round of Tiny on 2024-05-01 10:00"
        ),
        (
            "header.csv", "Name,Course,When,Score\nAnn,Tiny,2024-05-01,9",
            "it is not a UDisc scorecard export: the header needs PlayerName, CourseName, LayoutName, a date, Total and +/- columns"
        ),
    ]

    @Test(arguments: refusals)
    func aFileThatDoesNotAddUpIsRefusedWhole(name: String, text: String, error: String) throws {
        _ = try cli.ok(["init", "--name", "phone", "--owner", "Spence"])
        let file = directory.path(name).path
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let before = try cli.digest()
        // Even beside a good file, nothing is imported.
        let result = try cli.run(["import", "--udisc", Self.files[1], file])
        #expect(result.status == 1)
        #expect(result.stderr == "error: \(file): \(error); nothing was imported\n")
        #expect(result.stdout == "")
        #expect(try cli.digest() == before)
    }

    @Test func importingNeedsAnOwnerToOrganizeTheRounds() throws {
        _ = try cli.ok(["init", "--name", "laptop"])
        let result = try cli.run(["import", "--udisc", Self.files[1]])
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "error: imported rounds are organized by this device's owner, and it has none; create the store with `init --owner NAME`\n"
        )
    }

    /// An export writes the dates the imported rows carried: a newer export comes back whole but
    /// for the players' RoundRating, which no op keeps; an older export's Date becomes StartDate
    /// with EndDate empty. Importing an export elsewhere and exporting again gives the same bytes.
    @Test func anExportWritesTheImportedDatesAgain() throws {
        _ = try cli.ok(["init", "--name", "phone", "--owner", "Spence"])
        _ = try cli.ok(["import", "--udisc", Self.files[1]])
        let newer = directory.path("newer.csv").path
        _ = try cli.ok(["export", "--udisc", newer])
        let fixture = try String(contentsOfFile: Self.files[1], encoding: .utf8)
        let ratingless = fixture.replacingOccurrences(of: ",194,", with: ",,").replacingOccurrences(of: ",138,", with: ",,")
        #expect(try String(contentsOfFile: newer, encoding: .utf8) == ratingless)

        let laptop = BinaryRunner(store: directory.path("laptop"))
        _ = try laptop.ok(["init", "--name", "laptop", "--owner", "Spence"])
        _ = try laptop.ok(["import", "--udisc", Self.files[0]])
        let older = directory.path("older.csv").path
        _ = try laptop.ok(["export", "--udisc", older])
        let exported = try String(contentsOfFile: older, encoding: .utf8)
        #expect(exported.contains("\nPar,Bayview,Bayview - Right Deadly,2021-07-07 10:24,,57,,,3,3,3,3,3,3,3,3,3,4,3,3,3,3,3,4,3,4,,\n"))

        let tablet = BinaryRunner(store: directory.path("tablet"))
        _ = try tablet.ok(["init", "--name", "tablet", "--owner", "Spence"])
        _ = try tablet.ok(["import", "--udisc", older])
        let again = directory.path("again.csv").path
        _ = try tablet.ok(["export", "--udisc", again])
        #expect(try String(contentsOfFile: again, encoding: .utf8) == exported)
    }
}
