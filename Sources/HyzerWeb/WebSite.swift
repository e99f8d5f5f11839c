import Foundation
import Hummingbird
import HyzerDomain
import HyzerKit

/// The routes: pages from the templates, the CLI's `--json` documents under `/api`, live
/// events, `/metrics` and `/health`. Every page is a pure function of the replica's views.
struct WebSite: Sendable {
    let replica: Replica
    let templates: WebTemplates
    let live: LiveEvents
    let metrics: WebMetrics

    func addRoutes(to router: Router<BasicRequestContext>) {
        router.get("/") { _, _ in
            try html(.index, IndexModel(rounds: replica.rounds(), history: replica.history()))
        }
        router.get("/history") { _, _ in try html(.history, HistoryModel(replica.history())) }
        router.get("/rounds/:round") { _, context in
            try html(.leaderboard, LeaderboardModel(round(context)))
        }
        router.get("/rounds/:round/events") { _, context in
            let id = try round(context).round.id
            return await live.stream { [replica, templates] in
                guard let view = try replica.roundView(id) else { return "" }
                return templates.render(.board, LeaderboardModel(view))
            }
        }
        router.get("/rounds/:round/players/:player") { _, context in
            let (view, breakdown) = try card(context)
            return html(.card, CardModel(view, breakdown))
        }
        router.get("/players/:player") { _, context in try html(.player, PlayerModel(playerHistory(context))) }

        router.get("/api/rounds") { _, _ in try json(replica.roundDocuments()) }
        router.get("/api/rounds/:round") { _, context in try json(replica.roundDocument(round(context))) }
        router.get("/api/rounds/:round/standings") { _, context in try json(StandingsDocument(round(context))) }
        router.get("/api/rounds/:round/discrepancies") { _, context in try json(DiscrepanciesDocument(round(context))) }
        router.get("/api/rounds/:round/players/:player") { _, context in try json(card(context).1) }
        router.get("/api/history") { _, _ in try json(replica.history()) }
        router.get("/api/players") { _, _ in try json(replica.playerDocuments()) }
        router.get("/api/players/:player") { _, context in try json(playerHistory(context)) }

        router.get("/metrics") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: metrics.exposition())))
        }
        router.get("/health") { _, _ in
            let ops = try replica.versionVector().heads.values.reduce(0, +)
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: #"{"ops":\#(ops),"status":"ok"}"#)))
        }
    }

    // MARK: Lookups: anything the replica does not hold is a 404.

    private func round(_ context: BasicRequestContext) throws -> RoundView {
        let text = try context.parameters.require("round")
        do {
            return try replica.roundView(matching: text)
        } catch let error as ReplicaError {
            throw HTTPError(.notFound, message: "\(error)")
        } catch let error as RoundError {
            throw HTTPError(.notFound, message: "\(error)")  // `latest` on a replica with no round
        }
    }

    private func card(_ context: BasicRequestContext) throws -> (RoundView, Breakdown) {
        let view = try round(context)
        let text = try context.parameters.require("player")
        do {
            let participant = try replica.resolveParticipant(text, in: view.round)
            guard let breakdown = view.evaluation.breakdown(player: participant.id) else { throw HTTPError(.notFound) }
            return (view, breakdown)
        } catch let error as ReplicaError {
            throw HTTPError(.notFound, message: "\(error)")
        }
    }

    private func playerHistory(_ context: BasicRequestContext) throws -> PlayerHistoryDocument {
        let text = try context.parameters.require("player")
        do {
            let id = try replica.resolvePlayer(text)
            guard let player = try replica.players().first(where: { $0.id == id }) else { throw HTTPError(.notFound) }
            return PlayerHistoryDocument(player, history: try replica.history(includingStandings: true))
        } catch let error as ReplicaError {
            throw HTTPError(.notFound, message: "\(error)")
        }
    }

    // MARK: Responses

    private func html(_ page: WebTemplates.Page, _ model: Any) -> Response {
        Response(
            status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: templates.render(page, model))))
    }

    private func json(_ value: some Encodable) throws -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(data: try DocumentEncoding.encode(value))))
    }
}
