import HyzerDomain
import HyzerKit

/// A player's scores against par across completed rounds, as coordinates for the SVG template:
/// oldest round on the left, higher is more over par, a dashed line at par.
struct TrendChart {
    struct Point {
        let x: Int
        let y: Int
        let tier: String
        let label: String
    }

    struct Label {
        let x: Int
        let y: Int
        let text: String
    }

    let width = 640
    let height = 220
    let left = 64
    let right = 620
    let parY: Int
    let parLabelY: Int
    let polyline: String
    let points: [Point]
    let gridLabels: [Label]
    let description: String

    private static let top = 24
    private static let bottom = 196

    /// Nil without any round to draw.
    init?(_ oldestFirst: [PlayerHistoryDocument.Entry]) {
        guard !oldestFirst.isEmpty else { return nil }
        let scores = oldestFirst.map(\.relativeToPar)
        let high = max(scores.max()!, 1)
        let low = min(scores.min()!, -1)
        let span = high - low
        let (left, right) = (left, right)
        func y(_ score: Int) -> Int { Self.top + (high - score) * (Self.bottom - Self.top) / span }
        func x(_ index: Int) -> Int {
            oldestFirst.count == 1 ? (left + right) / 2 : left + index * (right - left) / (oldestFirst.count - 1)
        }
        points = oldestFirst.enumerated().map { index, entry in
            Point(
                x: x(index), y: y(entry.relativeToPar), tier: ScoreTier(relativeToPar: entry.relativeToPar).rawValue,
                label: "\(DateText.day(entry.finishedAt)) \(entry.course): \(entry.formatted)")
        }
        polyline = points.map { "\($0.x),\($0.y)" }.joined(separator: " ")
        parY = y(0)
        parLabelY = y(0) - 8
        gridLabels = [high, low].map { Label(x: left - 14, y: y($0) + 8, text: ScoreFormatting.formatted($0)) }
        description =
            "Score against par in \(oldestFirst.count) completed rounds, oldest first: "
            + oldestFirst.map(\.formatted).joined(separator: ", ")
    }
}
