import HyzerDomain
import HyzerKit

/// What the card template shows of one participant's round.
struct CardModel {
    struct Hole {
        let hole: Int
        let par: Int
        let strokesText: String
        let formatted: String
        let tier: String
        let disputed: Bool
    }

    let title: String
    let api: String
    let roundURL: String
    let links: SiteLinks
    let course: String
    let name: String
    let formatted: String
    let tier: String
    let totalStrokes: Int
    let totalPar: Int
    let holesPlayed: Int
    let holeCount: Int
    let holes: [Hole]

    init(_ view: RoundView, _ breakdown: Breakdown, links: SiteLinks = .live) {
        let round = view.round.id.lowercased
        title = "\(breakdown.name) · \(view.round.courseName)"
        api = links.cardAPI(round, breakdown.playerID)
        roundURL = links.round(round)
        self.links = links
        course = view.round.courseName
        name = breakdown.name
        holesPlayed = breakdown.holes.count { $0.strokes != nil }
        formatted = holesPlayed > 0 ? breakdown.formatted : "–"
        tier = holesPlayed > 0 ? ScoreTier(relativeToPar: breakdown.relativeToPar).rawValue : "none"
        totalStrokes = breakdown.totalStrokes
        totalPar = breakdown.totalPar
        holeCount = breakdown.holes.count
        holes = breakdown.holes.map { hole in
            Hole(
                hole: hole.hole, par: hole.par, strokesText: hole.strokes.map(String.init) ?? "·", formatted: hole.formatted ?? "",
                tier: hole.tier?.rawValue ?? "none", disputed: hole.disputed)
        }
    }
}
