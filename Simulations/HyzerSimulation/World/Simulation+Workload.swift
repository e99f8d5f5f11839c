import Foundation
import HyzerDomain
import HyzerKit

extension Simulation {
    /// What became of a command.
    enum Outcome<Value> {
        case done(Value)
        /// The replica refused it, with one clear error (a round not synced yet, a finished round,
        /// an event already corrected): a `ReplicaError` or one of the library's typed refusals.
        case refused(any Error)
        /// The device is down, or was killed before the command committed.
        case unavailable
    }

    /// Runs `body` on `device`'s replica as a user's command: skipped while it is down, cut by a
    /// power loss at one of its writes when a mid-write crash waits for it, and its ops captured
    /// as acknowledged once it returns.
    func command<Value>(_ index: Int, _ label: String, _ body: (Replica) throws -> Value) throws -> Outcome<Value> {
        let device = devices[index]
        guard device.isRunning else {
            record("\(device.name) is down: \(label) not done")
            return .unavailable
        }
        let armed = device.pendingCrash == .midWrite ? try armPowerCut(index) : nil
        do {
            let value = try body(device.running)
            if let armed, try powerWentOut(index, armed, during: label) { return .unavailable }
            lastCaptured = try capture(device)
            links.changed.insert(index)  // new ops, or held ops the command applied
            record("\(device.name) \(label) -> " + lastCaptured.map { "#\($0.sequence)@\($0.clock)" }.joined(separator: ","))
            return .done(value)
        } catch let error as ReplicaError {
            if let armed, try powerWentOut(index, armed, during: label) { return .unavailable }
            switch error {
            case .storage, .corruptStore, .badKeyFile, .notAStore:
                throw fail(.unexpected, "\(device.name) \(label): \(error)")
            case .writtenElsewhere:
                // Its key writes elsewhere (a restored or copied store): the user runs
                // `device continue`, as the message says, and tries again.
                coverage.count(.refusedCommands)
                record("\(device.name) \(label) -> refused: \(error)")
                try continueUnderNewKey(index)
                return try command(index, label, body)
            default:
                coverage.count(.refusedCommands)
                record("\(device.name) \(label) -> refused: \(error)")
                return .refused(error)
            }
        } catch  where Self.isRefusal(error) {
            if let armed, try powerWentOut(index, armed, during: label) { return .unavailable }
            coverage.count(.refusedCommands)
            record("\(device.name) \(label) -> refused: \(error)")
            return .refused(error)
        } catch {
            if let armed, try powerWentOut(index, armed, during: label) { return .unavailable }
            throw error
        }
    }

    /// Whether `error` is one of the library's typed refusals of a command (besides
    /// `ReplicaError`): a rule of groups, invitations, rounds, cards, corrections or input.
    static func isRefusal(_ error: any Error) -> Bool {
        error is GroupError || error is InvitationError || error is InputError || error is RoundError || error is CorrectionError
            || error is CardError
    }

    func perform(_ action: WorkloadAction) throws {
        switch action {
        case .startRound(let card): try startRound(card)
        case .score(let plan): try score(plan)
        case .correct(let card, let device, let participant, let hole): try correct(card, device, participant, hole)
        case .review(let card): try review(card)
        case .finish(let card): try finish(card)
        case .courseEdit(let edit): try courseEdit(edit)
        }
    }

    private func startRound(_ index: Int) throws {
        let card = plan.cards[index]
        guard let courseID = card.courseID, card.round == nil else { return }
        let players = card.players.compactMap { devices[$0].ownedPlayer?.lowercased }
        let outcome = try command(card.organizer, "starts card \(index) on \(card.courseName)") { replica in
            try replica.startRound(course: courseID.lowercased, players: players, guests: card.guests)
        }
        if case .done(let round) = outcome {
            plan.cards[index].round = round
            coverage.count(.roundsStarted)
            record("round \(short(round.id)) card \(index): \(round.participants.map(\.name)) pars=\(round.pars)")
        } else if world.now + 60_000 < healAt {
            scheduleIn(60_000, .workload(.startRound(card: index)))
        }
    }

    private func score(_ planned: ScorePlan) throws {
        let card = plan.cards[planned.card]
        guard let round = card.round, let truth = card.trueStrokes(participant: planned.participant, hole: planned.hole) else {
            retry(planned)
            return
        }
        let strokes = min(10, max(1, truth + planned.error))
        let participant = round.participants[planned.participant]
        let outcome = try command(
            planned.device, "scores \(participant.name) hole \(planned.hole) of \(short(round.id)): \(strokes)"
        ) { replica in
            try replica.recordScore(round: round.id.lowercased, player: participant.id.description, hole: planned.hole, strokes: strokes)
        }
        switch outcome {
        case .done(let event):
            plan.cards[planned.card].latestEvents[.init(device: planned.device, participant: planned.participant, hole: planned.hole)] =
                event.id
            if devices[planned.device].kind == .watch { coverage.count(.watchScores) }
        case .refused(ReplicaError.unknown(kind: "round", _)):
            retry(planned)
        default:
            break
        }
    }

    /// A device that has not seen the round yet tries again a little later, a few times.
    private func retry(_ planned: ScorePlan) {
        guard planned.attempt < 8, world.now + 60_000 < healAt else { return }
        var again = planned
        again.attempt += 1
        scheduleIn(UInt64(workloadRandom.integer(in: 30_000...180_000)), .workload(.score(again)))
    }

    private func correct(_ cardIndex: Int, _ device: Int, _ participant: Int, _ hole: Int) throws {
        let card = plan.cards[cardIndex]
        let key = Card.EventKey(device: device, participant: participant, hole: hole)
        guard let event = card.latestEvents[key], let strokes = card.trueStrokes(participant: participant, hole: hole) else { return }
        let outcome = try command(device, "corrects \(short(event)) to \(strokes)") { replica in
            try replica.correct(event: event.lowercased, strokes: strokes)
        }
        if case .done(let correction) = outcome {
            plan.cards[cardIndex].latestEvents[key] = correction.id
            coverage.count(.corrections)
        }
    }

    private func review(_ cardIndex: Int) throws {
        let card = plan.cards[cardIndex]
        guard let round = card.round, devices[card.organizer].isRunning else { return }
        guard let view = try readReplica(card.organizer, { try $0.roundView(round.id) }) ?? nil else { return }
        for discrepancy in view.evaluation.discrepancies {
            guard let participant = round.participants.firstIndex(where: { $0.id == discrepancy.playerID }),
                let truth = card.trueStrokes(participant: participant, hole: discrepancy.hole)
            else { continue }
            let strokes = workloadRandom.chance(0.85) ? truth : discrepancy.leaves[0].strokes
            let outcome = try command(card.organizer, "resolves \(discrepancy.name) hole \(discrepancy.hole) to \(strokes)") { replica in
                try replica.resolve(
                    round: round.id.lowercased, player: discrepancy.playerID.description, hole: discrepancy.hole, strokes: strokes)
            }
            if case .done = outcome { coverage.count(.resolutions) }
        }
    }

    private func finish(_ cardIndex: Int) throws {
        try review(cardIndex)
        let card = plan.cards[cardIndex]
        guard let round = card.round else { return }
        let status = try readReplica(card.organizer, { try $0.roundView(round.id)?.evaluation.status })
        let outcome = try command(card.organizer, "finishes \(short(round.id))") { replica in
            try replica.finishRound(round.id.lowercased, force: status != .awaitingFinalization)
        }
        switch outcome {
        case .done:
            coverage.count(.roundsFinished)
            self.outcome.lastFinishAt = world.now
            let away = devices.filter { !$0.isRunning || schedule.isOffline($0.index, at: world.now) }
            if !away.isEmpty {
                coverage.count(.roundsFinishedWhileOffline)
                record("finished while \(away.map(\.name)) offline")
            }
        case .unavailable where world.now + 120_000 < healAt:
            scheduleIn(120_000, .workload(.finish(card: cardIndex)))
        default:
            break
        }
    }

    private func courseEdit(_ edit: CourseEdit) throws {
        guard let course = SeededCourses.all.first(where: { $0.name == edit.course }) else { return }
        var clocks: [HLCTimestamp] = []
        for (offset, device) in edit.devices.enumerated() {
            let name = "\(edit.course) (\(devices[device].name))"
            let outcome: Outcome<Void>
            switch edit.change {
            case .rename:
                outcome = try command(device, "renames \(edit.course) to \(name)") { try $0.renameCourse(course.id.lowercased, to: name) }
            case .par(let hole):
                let par = 3 + (offset + hole) % 3
                outcome = try command(device, "sets \(edit.course) hole \(hole) par \(par)") {
                    try $0.setPar(course: course.id.lowercased, hole: hole, par: par)
                }
            case .deleteAndRename(let deleter) where deleter == device:
                outcome = try command(device, "deletes \(edit.course)") { try $0.deleteCourse(course.id.lowercased) }
            case .deleteAndRename:
                outcome = try command(device, "renames \(edit.course) to \(name)") { try $0.renameCourse(course.id.lowercased, to: name) }
            }
            if case .done = outcome { clocks += lastCaptured.map(\.clock) }
        }
        guard clocks.count >= 2 else { return }
        coverage.count(.concurrentCourseEdits)
        if Set(clocks).count == 1 {
            coverage.count(.exactTieCourseEdits)
            record("course edits tie at \(clocks[0])")
        }
    }

    /// Reads from a running replica; a storage failure is a failure of the run.
    func readReplica<Value>(_ index: Int, _ body: (Replica) throws -> Value) throws -> Value? {
        guard let replica = devices[index].replica else { return nil }
        do {
            return try body(replica)
        } catch {
            throw fail(.unexpected, "\(devices[index].name) failed to read its views: \(error)")
        }
    }

    /// The first eight hexadecimal digits of an id, for the trace.
    func short(_ id: UUID) -> String { String(id.lowercased.prefix(8)) }
}
