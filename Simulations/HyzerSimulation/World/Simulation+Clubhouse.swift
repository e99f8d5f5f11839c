import Foundation
import HyzerKit

extension Simulation {
    /// Before the first tee: the phones sync directly with each other (players, courses, the
    /// course edits they just made) — in a hub world each checks in at the director's laptop,
    /// which hands out everyone's — and each watch is paired with its phone, linked from the
    /// phone so that it owns the phone's player.
    func clubhouse() throws {
        let phones = devices.filter { $0.kind == .phone && $0.isRunning }
        if configuration.hub, let director = devices.first(where: { $0.kind == .laptop }), director.isRunning {
            for phone in phones { try exchangeDirectly(from: phone, to: director) }
            for phone in phones { try exchangeDirectly(from: director, to: phone) }
        } else {
            for receiver in phones {
                for sender in phones where sender.index != receiver.index {
                    try exchangeDirectly(from: sender, to: receiver)
                }
            }
        }
        for watch in devices where watch.kind == .watch { try pair(watch) }
    }

    private func pair(_ watch: SimulatedDevice) throws {
        guard let phoneIndex = watch.pairedPhone, devices[phoneIndex].isRunning, watch.isRunning,
            let player = devices[phoneIndex].ownedPlayer
        else { return }
        let phone = devices[phoneIndex]
        try exchangeDirectly(from: watch, to: phone)
        let outcome = try command(phoneIndex, "links \(watch.name) to its owner") { replica in
            try replica.linkDevice(watch.author.hex, owner: player.lowercased)
        }
        guard case .done = outcome else { throw fail(.unexpected, "\(watch.name) could not be paired") }
        watch.ownedPlayer = player
        try exchangeDirectly(from: phone, to: watch)
    }

    /// One direct, fault-free transfer of everything `receiver` lacks.
    private func exchangeDirectly(from sender: SimulatedDevice, to receiver: SimulatedDevice) throws {
        do {
            let segments = try sender.running.delta(above: try receiver.running.versionVector())
            let report = try receiver.running.ingest(segments)
            if report.opsApplied > 0 { links.changed.insert(receiver.index) }
            record("clubhouse \(sender.name)->\(receiver.name) applied=\(report.opsApplied)")
        } catch {
            throw fail(.unexpected, "clubhouse sync \(sender.name)->\(receiver.name): \(error)")
        }
    }
}
