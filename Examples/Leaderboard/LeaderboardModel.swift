import HyzerEngine
import Observation

/// What a leaderboard screen shows, as a SwiftUI app keeps it: an `@Observable` model on the
/// main actor that follows a round's live standings and the sync's status. A view reads its
/// properties and redraws when they change; here the terminal front end (`main.swift`) does.
@Observable @MainActor
final class LeaderboardModel {
    /// The course and where the round stands, once the first standings arrived.
    private(set) var title = "waiting for the standings"
    /// The leaderboard, best first.
    private(set) var entries: [StandingsEntry] = []
    /// The peers connected now, each with how far behind this device it is.
    private(set) var peers: [PeerLag] = []
    /// Where peers reach this device, once it listens.
    private(set) var listening: PeerAddress?
    /// The latest thing that went wrong, until something goes right again.
    private(set) var problem: String?
    @ObservationIgnored private var following: [Task<Void, Never>] = []

    /// Follows the standings of `round` until `stop()`. The loop's body runs on the main actor,
    /// the task's executor: the engine reads off it and hands each value over.
    func follow(_ round: RoundID, on engine: HyzerEngine) {
        following.append(
            Task { [weak self] in
                do {
                    for try await standings in engine.observe(.standings(of: round)) {
                        self?.title = "\(standings.course), \(standings.status)"
                        self?.entries = standings.standings
                    }
                } catch {
                    self?.problem = error.localizedDescription
                }
            })
    }

    /// Follows `sync`'s status until it stops or `stop()`.
    func follow(_ sync: SyncController) {
        following.append(
            Task { [weak self] in
                for await status in sync.statuses() {
                    self?.peers = status.peers
                    self?.listening = status.listening
                    self?.problem = status.lastFailure?.description
                }
            })
    }

    /// Stops following.
    func stop() {
        for task in following { task.cancel() }
        following = []
    }
}
