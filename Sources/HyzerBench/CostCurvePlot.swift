import Foundation

/// The cost curve as an SVG drawing (docs/performance.md shows the one a bench run wrote): sync
/// bytes on a logarithmic axis against the differing authors (0, 1, 10, 100, evenly spaced), one
/// line per group size, and the floor — one bundle of only the missing ops — dashed.
enum CostCurvePlot {
    static let width = 640.0
    static let height = 400.0
    static let margin = (left: 80.0, right: 150.0, top: 30.0, bottom: 60.0)
    static let colors = ["#1b6ca8", "#d1495b", "#2e933c", "#7a5195"]

    static func svg(_ points: [CostCurveBenchmark.Point]) -> String {
        let differences = CostCurveBenchmark.differences
        let values = points.map { Double($0.bytes) } + points.map { Double($0.floorBytes) }.filter { $0 > 0 }
        let low = floor(log10(max(1, values.min() ?? 1)))
        let high = ceil(log10(max(10, values.max() ?? 10)))
        let plotWidth = width - margin.left - margin.right
        let plotHeight = height - margin.top - margin.bottom
        func x(_ differing: Int) -> Double {
            let index = Double(differences.firstIndex(of: differing) ?? 0)
            return margin.left + plotWidth * index / Double(max(1, differences.count - 1))
        }
        func y(_ bytes: Double) -> Double { margin.top + plotHeight * (1 - (log10(max(1, bytes)) - low) / max(1, high - low)) }
        func number(_ value: Double) -> String { String(format: "%.1f", value) }

        var svg = [
            #"<svg xmlns="http://www.w3.org/2000/svg" width="\#(Int(width))" height="\#(Int(height))" font-family="sans-serif" font-size="12">"#,
            #"<rect width="100%" height="100%" fill="white"/>"#,
            #"<text x="\#(number(margin.left))" y="18" font-size="14">Bytes of one TCP sync by authors that differ (hyzer-peer bench)</text>"#,
        ]
        for power in stride(from: Int(low), through: Int(high), by: 1) {
            let line = y(pow(10, Double(power)))
            svg.append(
                #"<line x1="\#(number(margin.left))" y1="\#(number(line))" x2="\#(number(width - margin.right))" y2="\#(number(line))" stroke="rgb(221,221,221)"/>"#
            )
            svg.append(#"<text x="\#(number(margin.left - 8))" y="\#(number(line + 4))" text-anchor="end">\#(label(power))</text>"#)
        }
        for differing in differences {
            svg.append(
                #"<text x="\#(number(x(differing)))" y="\#(number(height - margin.bottom + 18))" text-anchor="middle">\#(differing)</text>"#)
        }
        svg.append(
            #"<text x="\#(number(margin.left + plotWidth / 2))" y="\#(number(height - 15))" text-anchor="middle">authors whose logs differ</text>"#
        )
        svg.append(#"<text x="18" y="\#(number(margin.top + plotHeight / 2))" transform="rotate(-90 18 \#(number(margin.top + plotHeight / 2)))" text-anchor="middle">bytes (both ways)</text>"#)
        for (index, authors) in CostCurveBenchmark.groupSizes.enumerated() {
            let line = points.filter { $0.authors == authors }.sorted { $0.differing < $1.differing }
            guard !line.isEmpty else { continue }
            let color = colors[index % colors.count]
            let path = line.map { "\(number(x($0.differing))),\(number(y(Double($0.bytes))))" }.joined(separator: " ")
            svg.append(#"<polyline points="\#(path)" fill="none" stroke="\#(color)" stroke-width="2"/>"#)
            for point in line {
                svg.append(#"<circle cx="\#(number(x(point.differing)))" cy="\#(number(y(Double(point.bytes))))" r="3" fill="\#(color)"/>"#)
            }
            let legend = margin.top + 20 + Double(index) * 20
            svg.append(
                #"<line x1="\#(number(width - margin.right + 15))" y1="\#(number(legend - 4))" x2="\#(number(width - margin.right + 40))" y2="\#(number(legend - 4))" stroke="\#(color)" stroke-width="2"/>"#
            )
            svg.append(#"<text x="\#(number(width - margin.right + 45))" y="\#(number(legend))">\#(authors) authors</text>"#)
        }
        let floors = Dictionary(grouping: points.filter { $0.floorBytes > 0 }, by: \.differing).compactMapValues { $0.map(\.floorBytes).min() }
            .sorted { $0.key < $1.key }
        if !floors.isEmpty {
            let path = floors.map { "\(number(x($0.key))),\(number(y(Double($0.value))))" }.joined(separator: " ")
            svg.append(#"<polyline points="\#(path)" fill="none" stroke="rgb(85,85,85)" stroke-width="1.5" stroke-dasharray="5 4"/>"#)
            let legend = margin.top + 20 + Double(CostCurveBenchmark.groupSizes.count) * 20
            svg.append(
                #"<line x1="\#(number(width - margin.right + 15))" y1="\#(number(legend - 4))" x2="\#(number(width - margin.right + 40))" y2="\#(number(legend - 4))" stroke="rgb(85,85,85)" stroke-dasharray="5 4"/>"#
            )
            svg.append(#"<text x="\#(number(width - margin.right + 45))" y="\#(number(legend))">the missing ops</text>"#)
        }
        svg.append("</svg>")
        return svg.joined(separator: "\n") + "\n"
    }

    private static func label(_ power: Int) -> String {
        switch power {
        case ..<3: "\(Int(pow(10, Double(power)))) B"
        case 3..<6: "\(Int(pow(10, Double(power - 3)))) kB"
        default: "\(Int(pow(10, Double(power - 6)))) MB"
        }
    }
}
