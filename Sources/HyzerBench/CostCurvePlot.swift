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

        let title = "Bytes of one TCP sync by authors that differ (hyzer-peer bench)"
        var svg = [
            #"<svg xmlns="http://www.w3.org/2000/svg" width="\#(Int(width))" height="\#(Int(height))" font-family="sans-serif" font-size="12">"#,
            #"<rect width="100%" height="100%" fill="white"/>"#, text(margin.left, 18, title, attributes: #"font-size="14""#),
        ]
        for power in stride(from: Int(low), through: Int(high), by: 1) {
            let level = y(pow(10, Double(power)))
            svg.append(line(margin.left, level, width - margin.right, level, stroke: "rgb(221,221,221)"))
            svg.append(text(margin.left - 8, level + 4, label(power), attributes: #"text-anchor="end""#))
        }
        for differing in differences {
            svg.append(text(x(differing), height - margin.bottom + 18, "\(differing)", attributes: #"text-anchor="middle""#))
        }
        svg.append(text(margin.left + plotWidth / 2, height - 15, "authors whose logs differ", attributes: #"text-anchor="middle""#))
        let middle = number(margin.top + plotHeight / 2)
        svg.append(
            text(
                18, margin.top + plotHeight / 2, "bytes (both ways)",
                attributes: #"transform="rotate(-90 18 \#(middle))" text-anchor="middle""#))
        let legendX = width - margin.right + 15
        for (index, authors) in CostCurveBenchmark.groupSizes.enumerated() {
            let points = points.filter { $0.authors == authors }.sorted { $0.differing < $1.differing }
            guard !points.isEmpty else { continue }
            let color = colors[index % colors.count]
            let path = points.map { "\(number(x($0.differing))),\(number(y(Double($0.bytes))))" }.joined(separator: " ")
            svg.append(#"<polyline points="\#(path)" fill="none" stroke="\#(color)" stroke-width="2"/>"#)
            for point in points {
                svg.append(#"<circle cx="\#(number(x(point.differing)))" cy="\#(number(y(Double(point.bytes))))" r="3" fill="\#(color)"/>"#)
            }
            let legend = margin.top + 20 + Double(index) * 20
            svg.append(line(legendX, legend - 4, legendX + 25, legend - 4, stroke: color, attributes: #"stroke-width="2""#))
            svg.append(text(legendX + 30, legend, "\(authors) authors"))
        }
        let floors = Dictionary(grouping: points.filter { $0.floorBytes > 0 }, by: \.differing)
            .compactMapValues { $0.map(\.floorBytes).min() }
            .sorted { $0.key < $1.key }
        if !floors.isEmpty {
            let dashed = #"stroke-dasharray="5 4""#
            let path = floors.map { "\(number(x($0.key))),\(number(y(Double($0.value))))" }.joined(separator: " ")
            svg.append(#"<polyline points="\#(path)" fill="none" stroke="rgb(85,85,85)" stroke-width="1.5" \#(dashed)/>"#)
            let legend = margin.top + 20 + Double(CostCurveBenchmark.groupSizes.count) * 20
            svg.append(line(legendX, legend - 4, legendX + 25, legend - 4, stroke: "rgb(85,85,85)", attributes: dashed))
            svg.append(text(legendX + 30, legend, "the missing ops"))
        }
        svg.append("</svg>")
        return svg.joined(separator: "\n") + "\n"
    }

    private static func number(_ value: Double) -> String { String(format: "%.1f", value) }

    private static func text(_ x: Double, _ y: Double, _ content: String, attributes: String = "") -> String {
        #"<text x="\#(number(x))" y="\#(number(y))" \#(attributes)>\#(content)</text>"#
    }

    private static func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, stroke: String, attributes: String = "") -> String {
        #"<line x1="\#(number(x1))" y1="\#(number(y1))" x2="\#(number(x2))" y2="\#(number(y2))" stroke="\#(stroke)" \#(attributes)/>"#
    }

    private static func label(_ power: Int) -> String {
        switch power {
        case ..<3: "\(Int(pow(10, Double(power)))) B"
        case 3..<6: "\(Int(pow(10, Double(power - 3)))) kB"
        default: "\(Int(pow(10, Double(power - 6)))) MB"
        }
    }
}
