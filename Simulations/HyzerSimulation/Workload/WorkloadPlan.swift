import Foundation

/// The rounds the players will play, drawn at setup: cards, their holes' true scores, who
/// records what and when, mistakes and their corrections, reviews, finishes, course races.
struct WorkloadPlan {
    var cards: [Card] = []
    var actions: [(time: UInt64, action: WorkloadAction)] = []
    /// True instants at which some round is finished (a device is taken offline over one).
    var finishTimes: [(card: Int, time: UInt64)] = []

    static let playerNames = ["Avery", "Blake", "Casey", "Devon", "Emery", "Finley", "Gray", "Harper", "Indy", "Jules", "Kai", "Lane"]

    /// The name of the player phone `index` belongs to.
    static func playerName(_ index: Int) -> String {
        index < playerNames.count ? playerNames[index] : "Player \(index + 1)"
    }

    /// Plans the run's workload. `phones` are device indices 0..<phones; `watches` are the
    /// watches' indices and the phones they are paired with.
    static func draw(
        _ configuration: SimulationConfiguration, start: UInt64, watches: [(index: Int, phone: Int)], random: inout SimulationRandom
    ) -> WorkloadPlan {
        var plan = WorkloadPlan()
        let settings = configuration.workload
        let workload = configuration.workloadMilliseconds
        let roundStart = start + min(5 * 60_000, workload / 10)
        let holeLength = max(10_000, workload * 8 / 10 / UInt64(configuration.holes))
        let cardCount = configuration.cardCount
        // Cards tee off a minute apart; a tournament's many cards start together (a shotgun start).
        let stagger: UInt64 = cardCount > 3 ? 1_000 : 60_000
        var guestsSoFar = 0
        for cardIndex in 0..<cardCount {
            let players = stride(from: cardIndex, to: configuration.phones, by: cardCount).map { $0 }
            let guestCount =
                configuration.players.map { $0 / cardCount + (cardIndex < $0 % cardCount ? 1 : 0) - players.count }
                ?? (settings.guests ? 1 : 0)
            let guests = (0..<guestCount).map { "Guest \(guestsSoFar + $0 + 1)" }
            guestsSoFar += guestCount
            let participants = players.count + guests.count
            let truth = (0..<participants).map { _ in (0..<configuration.holes).map { _ in drawRelativeToPar(&random) } }
            let seeded = configuration.holes == 18
            plan.cards.append(
                Card(
                    index: cardIndex, organizer: players[0], players: players, guests: guests,
                    courseName: seeded ? ["Morley Field", "DeLaveaga"][cardIndex % 2] : "Sim Course \(cardIndex + 1)",
                    customPars: seeded ? nil : (0..<configuration.holes).map { _ in random.integer(in: 3...5) }, truth: truth))
            let cardStart = roundStart + UInt64(cardIndex) * stagger
            plan.actions.append((cardStart, .startRound(card: cardIndex)))
            for hole in 1...configuration.holes {
                let holeTime = cardStart + 60_000 + UInt64(hole - 1) * holeLength
                for participant in 0..<participants {
                    let owner = participant < players.count ? players[participant] : nil
                    var recorders: [Int] = []
                    if let owner, random.chance(0.92) { recorders.append(owner) }
                    if let owner, let watch = watches.first(where: { $0.phone == owner }), random.chance(settings.watchScoreRate) {
                        recorders.append(watch.index)
                    }
                    if owner != players[0], owner == nil || random.chance(settings.scorekeeperRate) { recorders.append(players[0]) }
                    if owner == nil, players.count > 1, random.chance(0.3) {
                        recorders.append(players[1 + random.below(players.count - 1)])
                    }
                    var previousTime: UInt64?
                    for device in recorders {
                        var time = holeTime + UInt64(random.integer(in: 0...Int(holeLength * 4 / 10)))
                        if let previousTime, random.chance(settings.sameMillisecondRate) { time = previousTime }
                        previousTime = time
                        let error = random.chance(settings.scoringErrorRate) ? (random.chance(0.5) ? 1 : -1) : 0
                        plan.actions.append(
                            (time, .score(ScorePlan(card: cardIndex, device: device, participant: participant, hole: hole, error: error))))
                        if error != 0, random.chance(settings.correctionRate) {
                            let later = time + UInt64(random.integer(in: 20_000...max(20_000, Int(holeLength * 2))))
                            plan.actions.append((later, .correct(card: cardIndex, device: device, participant: participant, hole: hole)))
                        }
                    }
                }
                if hole % max(1, settings.reviewEveryHoles) == 0 {
                    plan.actions.append((holeTime + holeLength * 7 / 10, .review(card: cardIndex)))
                }
            }
            let roundEnd = cardStart + 60_000 + UInt64(configuration.holes) * holeLength
            let finish = min(start + workload - 30_000, roundEnd + UInt64(random.integer(in: 30_000...max(30_000, Int(workload / 20)))))
            plan.actions.append((max(roundEnd, finish), .finish(card: cardIndex)))
            plan.finishTimes.append((cardIndex, max(roundEnd, finish)))
        }
        plan.planCourseRaces(configuration, start: start, random: &random)
        return plan
    }

    /// A hole's true score relative to par: mostly par or bogey, sometimes a birdie or worse.
    private static func drawRelativeToPar(_ random: inout SimulationRandom) -> Int {
        let roll = random.below(100)
        switch roll {
        case ..<15: return -1
        case ..<60: return 0
        case ..<88: return 1
        case ..<98: return 2
        default: return 3
        }
    }

    /// Races of course edits: one at setup on two accurate phones at the same millisecond, then
    /// some at random instants among random phones.
    private mutating func planCourseRaces(_ configuration: SimulationConfiguration, start: UInt64, random: inout SimulationRandom) {
        guard configuration.phones >= 2 else { return }
        if configuration.workload.exactTieCourseEdits {
            actions.append(
                (start + 1_000, .courseEdit(CourseEdit(devices: [0, 1], course: "Maple Hill", change: .rename, expectTie: true))))
            actions.append(
                (start + 1_000, .courseEdit(CourseEdit(devices: [0, 1], course: "Maple Hill", change: .par(hole: 4), expectTie: true))))
        }
        let expected = configuration.workload.courseEditsPerHour * configuration.hours
        var races = Int(expected)
        if random.chance(expected - Double(races)) { races += 1 }
        for _ in 0..<races {
            let time = start + 120_000 + UInt64(random.integer(in: 0...Int(configuration.workloadMilliseconds * 9 / 10)))
            let count = min(configuration.phones, random.integer(in: 2...3))
            let devices = Array(random.shuffled(Array(0..<configuration.phones)).prefix(count)).sorted()
            let course = random.pick(["Maple Hill", "Morley Field", "DeLaveaga"])
            let change: CourseEdit.Change
            switch random.below(10) {
            case ..<5: change = .rename
            case ..<9: change = .par(hole: random.integer(in: 1...18))
            default: change = course == "Maple Hill" ? .deleteAndRename(deleter: devices[0]) : .rename
            }
            actions.append((time, .courseEdit(CourseEdit(devices: devices, course: course, change: change, expectTie: false))))
        }
    }
}
