import Foundation
import HyzerDomain
import HyzerKit

/// The read-only web side as static files (docs/web.md, "Published pages"): the front page, the
/// history, each round's leaderboard and each participant's card, each beside its JSON, with
/// relative links (`SiteLinks.published`), all in one directory. Exactly what `serve --http`
/// shows, no more: no bundle, no key, no token.
struct StaticSite {
    /// One file of the site.
    struct File: Equatable, Sendable {
        let name: String
        let bytes: [UInt8]
        let contentType: String
    }

    static let html = "text/html; charset=utf-8"
    static let json = "application/json"

    let templates: WebTemplates
    /// The files of each round as last rendered, with what they were rendered from: a round
    /// whose evaluation is unchanged is not rendered again.
    private var rounds: [UUID: (round: Round, evaluation: RoundEvaluation, files: [File])] = [:]

    init() throws { templates = try WebTemplates() }

    /// Every file, as the replica's views are now: the rounds' files first, then the pages that
    /// link to them (so a link never leads to a file not yet written).
    mutating func render(_ replica: Replica) throws -> [File] {
        let links = SiteLinks.published
        let views = try replica.rounds()
        let history = try replica.history()
        var files: [File] = []
        for view in views {
            if let cached = rounds[view.round.id], cached.round == view.round, cached.evaluation == view.evaluation {
                files += cached.files
                continue
            }
            let rendered = try roundFiles(view, links: links)
            rounds[view.round.id] = (view.round, view.evaluation, rendered)
            files += rendered
        }
        files.append(page("history.html", .history, HistoryModel(history, links: links)))
        files.append(try document(links.historyAPI, history))
        files.append(try document(links.roundsAPI, replica.roundDocuments()))
        files.append(page(links.home, .index, IndexModel(rounds: views, history: history, links: links)))
        return files
    }

    /// A round's leaderboard and its participants' cards, each with its JSON.
    private func roundFiles(_ view: RoundView, links: SiteLinks) throws -> [File] {
        let id = view.round.id.lowercased
        var files = [
            page(links.round(id), .leaderboard, LeaderboardModel(view, links: links)),
            try document(links.roundAPI(id), StandingsDocument(view)),
        ]
        for participant in view.round.participants {
            guard let breakdown = view.evaluation.breakdown(player: participant.id) else { continue }
            files.append(page(links.card(id, participant.id), .card, CardModel(view, breakdown, links: links)))
            files.append(try document(links.cardAPI(id, participant.id), breakdown))
        }
        return files
    }

    private func page(_ name: String, _ template: WebTemplates.Page, _ model: Any) -> File {
        File(name: name, bytes: Array(templates.render(template, model).utf8), contentType: Self.html)
    }

    private func document(_ name: String, _ value: some Encodable) throws -> File {
        File(name: name, bytes: Array(try DocumentEncoding.encode(value)), contentType: Self.json)
    }
}
