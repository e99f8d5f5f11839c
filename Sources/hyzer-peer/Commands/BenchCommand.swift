import ArgumentParser
import Foundation
import HyzerBench

struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench", abstract: "Measure performance, each figure beside a baseline from the same run.")
    @OptionGroup var output: OutputOptions
    @Flag(help: "A reduced run, under a minute.") var quick = false
    @Option(
        name: .customLong("only"),
        help: ArgumentHelp("Run only these groups: \(BenchSuite.groups.joined(separator: ", ")) (repeatable)."))
    var groups: [String] = []
    @Option(help: ArgumentHelp("Write the cost curve's drawing (SVG) to this file.", valueName: "FILE")) var plot: String?
    @Option(help: ArgumentHelp("The largest group of the bucket figures (150; 5 with --quick).", valueName: "N"))
    var bucketDevices: Int?

    func validate() throws {
        for group in groups where !BenchSuite.groups.contains(group) {
            throw ValidationError("'\(group)' is not a benchmark group; choose from \(BenchSuite.groups.joined(separator: ", "))")
        }
        if let bucketDevices, !(3...1_000).contains(bucketDevices) { throw ValidationError("--bucket-devices must be 3 to 1000") }
    }

    struct Document: Encodable {
        let machine: String
        let figures: [Figure]
    }

    func run() async throws {
        let suite = BenchSuite(
            quick: quick, only: Set(groups), plot: plot.map { URL(fileURLWithPath: $0) }, bucketDevices: bucketDevices)
        let figures = try await suite.run(
            progress: { step in if !output.json { Terminal.error("measuring \(step)…") } },
            skipped: { reason in Terminal.error("skipped \(reason)") })
        if output.json { return try JSONOutput.print(Document(machine: BenchSuite.machine, figures: figures)) }
        print(BenchSuite.machine)
        var table = Table([
            ("Figure", .left), ("Value", .right), ("Unit", .left), ("Baseline", .right), ("Ratio", .right), ("Target", .left),
            ("Met", .left), ("Spread", .right),
        ])
        for figure in figures {
            table.add([
                .init(figure.name), .init(Self.format(figure.value)), .init(figure.unit), .init(figure.baseline.map(Self.format) ?? ""),
                .init(figure.ratio.map { String(format: "%.2f×", $0) } ?? ""), .init(figure.target ?? ""),
                .init(figure.met.map { $0 ? "yes" : "no" } ?? "", figure.met == false ? .red : .green),
                .init(String(format: "%.0f%%", figure.spread * 100)),
            ])
        }
        print(table.render())
        for figure in figures { if let name = figure.baselineName { print("\(figure.name): baseline is \(name)") } }
    }

    static func format(_ value: Double) -> String {
        value >= 100 ? String(format: "%.0f", value) : value >= 0.01 ? String(format: "%.2f", value) : String(format: "%.5f", value)
    }
}
