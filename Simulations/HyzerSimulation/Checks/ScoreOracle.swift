import Foundation
import HyzerDomain
import HyzerKit

/// What every round's scores must be, derived independently from the ops the devices
/// created (the registry), by the rules of docs/rules.md: valid supersessions decide the leaves,
/// clocks only break ties. Converged views that disagree with it are wrong everywhere at once —
/// the kind of bug convergence alone cannot see.
struct ScoreOracle {
    struct Event {
        let id: UUID
        let round: UUID
        let hole: Int
        let player: ParticipantID
        let strokes: Int
        let supersedes: [UUID]
        let device: AuthorID
        let clock: HLCTimestamp
        let sequence: UInt64
    }

    struct Finish {
        let round: UUID
        let device: AuthorID
        let clock: HLCTimestamp
        /// What the finishing device held of each scoring author (op kind 16); `nil` for kind 9.
        let covered: [AuthorID: UInt64]?
    }

    private(set) var events: [UUID: [Event]] = [:]
    private(set) var finishes: [UUID: [Finish]] = [:]
    private(set) var organizers: [UUID: ParticipantID] = [:]
    private(set) var owners: [ParticipantID: Set<AuthorID>] = [:]

    init(_ registry: OpRegistry) {
        var links: [(player: ParticipantID, device: AuthorID, by: AuthorID)] = []
        // A successor key (`device continue`) owns every player its predecessor owns.
        var successions: [(predecessor: AuthorID, successor: AuthorID)] = []
        for (author, entry) in registry.all {
            switch entry.payload {
            case .playerCreated:
                owners[ParticipantID(player: entry.entityID), default: []].insert(author)
            case .deviceLinked(let device, let player):
                links.append((ParticipantID(player: player), device, author))
            case .deviceSucceeded(let predecessor, _):
                successions.append((predecessor, author))
            case .roundStarted(let start):
                organizers[entry.entityID] = start.organizer.participantID
            case .roundFinished(let round, _):
                finishes[round, default: []].append(Finish(round: round, device: author, clock: entry.clock, covered: nil))
            case .roundFinishedCovering(let round, _, let covered):
                finishes[round, default: []].append(Finish(round: round, device: author, clock: entry.clock, covered: covered))
            case .scoreRecorded(let score):
                events[score.roundID, default: []].append(
                    Event(
                        id: entry.entityID, round: score.roundID, hole: score.hole, player: score.player.participantID,
                        strokes: score.strokes, supersedes: score.supersedes, device: author, clock: entry.clock,
                        sequence: entry.sequence))
            default:
                break
            }
        }
        var changed = true
        while changed {
            changed = false
            for link in links where owners[link.player]?.contains(link.by) == true {
                if owners[link.player, default: []].insert(link.device).inserted { changed = true }
            }
            for succession in successions {
                for player in owners.keys.sorted() where owners[player]!.contains(succession.predecessor) {
                    if owners[player]!.insert(succession.successor).inserted { changed = true }
                }
            }
        }
    }

    /// The first way `view` departs from the oracle, or nil.
    func disagreement(with view: RoundView) -> String? {
        let round = view.round
        let organizerDevices = organizers[round.id].flatMap { owners[$0] } ?? []
        let finish = (finishes[round.id] ?? []).filter { organizerDevices.contains($0.device) }
            .min { ($0.clock, $0.device) < ($1.clock, $1.device) }
        if view.evaluation.finish?.createdAt != finish?.clock || view.evaluation.finish?.deviceID != finish?.device {
            return
                "round \(round.id.lowercased.prefix(8)): the valid finish is \(String(describing: finish?.clock)), views say \(String(describing: view.evaluation.finish?.createdAt))"
        }
        let valid = (events[round.id] ?? []).filter { event in
            guard let finish else { return true }
            if let covered = finish.covered {
                guard event.sequence > covered[event.device] ?? 0 else { return true }
            } else if event.clock <= finish.clock {
                return true
            }
            return !event.supersedes.isEmpty && organizerDevices.contains(event.device)
        }
        var byID: [UUID: Event] = [:]
        for event in valid { byID[event.id] = event }
        var superseded: Set<UUID> = []
        for event in valid {
            for target in event.supersedes where target != event.id {
                guard let old = byID[target], old.player == event.player, old.hole == event.hole,
                    old.device == event.device || organizerDevices.contains(event.device)
                else { continue }
                superseded.insert(target)
            }
        }
        for participant in view.evaluation.participants {
            for hole in 1...max(1, round.holeCount) where hole <= round.holeCount {
                let leaves = valid.filter { $0.player == participant.id && $0.hole == hole && !superseded.contains($0.id) }
                    .sorted { ($0.clock, $0.id.lowercased) < ($1.clock, $1.id.lowercased) }
                let score = view.evaluation.score(player: participant.id, hole: hole)
                let place = "round \(round.id.lowercased.prefix(8)) \(participant.name) hole \(hole)"
                if Set(score.leaves.map(\.id)) != Set(leaves.map(\.id)) {
                    return
                        "\(place): the leaves are \(leaves.map { "\($0.strokes)@\($0.clock)" }), views show \(score.leaves.map { "\($0.strokeCount)@\($0.createdAt)" })"
                }
                let disputed = Set(leaves.map(\.strokes)).count > 1
                if score.isDisputed != disputed || score.strokes != leaves.first?.strokes {
                    return
                        "\(place): expected \(leaves.first.map { "\($0.strokes)" } ?? "no score")\(disputed ? " (disputed)" : ""), views show \(score.strokes.map { "\($0)" } ?? "no score")\(score.isDisputed ? " (disputed)" : "")"
                }
            }
        }
        return nil
    }

    /// Holes where several devices' leaves agree (a silent merge) and holes that were disputed
    /// at some point (first scores from two devices that disagree), over every round.
    func mergesAndDisputes() -> (merges: Int, disputes: Int) {
        var merges = 0
        var disputes = 0
        for round in events.keys.sorted(by: { $0.lowercased < $1.lowercased }) {
            var firsts: [String: [Event]] = [:]
            for event in events[round]! where event.supersedes.isEmpty {
                firsts["\(event.player)#\(event.hole)", default: []].append(event)
            }
            for key in firsts.keys.sorted() {
                let group = firsts[key]!
                guard Set(group.map(\.device)).count > 1 else { continue }
                if Set(group.map(\.strokes)).count > 1 { disputes += 1 } else { merges += 1 }
            }
        }
        return (merges, disputes)
    }
}
