import Foundation
import HyzerCrypto
import HyzerKit

extension Simulation {
    /// The organizer (phone 0) removes `index` from the group and rekeys it, as `group remove`
    /// does; while phone 0 is down, it tries again a minute later.
    func removeMember(_ index: Int) throws {
        let name = devices[index].name
        // As a user would, once every device has synced with the organizer at least once: a
        // device the organizer has not heard of is no recipient of the rekey (docs/security.md).
        if devices[0].isRunning {
            let heard = try vector(of: 0)
            if let unknown = devices.first(where: { heard[$0.author] == 0 }) {
                record("the organizer waits to remove \(name): it has not heard from \(unknown.name) yet")
                scheduleIn(60_000, .removeMember(device: index))
                return
            }
        }
        let secret = random.bytes(GroupMembership.secretBytes)
        switch try command(0, "removes \(name) from the group", { try $0.removeMember(devices[index].author.hex, newSecret: secret) }) {
        case .done(let removal):
            self.removal?.through = removal.through
            coverage.count(.membersRemoved)
            record("\(name)'s ops up to \(removal.through) count; the group key is now epoch \(removal.epoch)")
        case .refused(let error):
            throw fail(.unexpected, "the organizer could not remove \(name): \(error)")
        case .unavailable:
            scheduleIn(60_000, .removeMember(device: index))
        }
    }
}
