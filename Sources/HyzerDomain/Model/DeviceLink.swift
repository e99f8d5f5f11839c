/// A signed claim that `linkedBy` made `device` an owner of `player`. It counts only while
/// `linkedBy` itself owns the player.
public struct DeviceLink: Hashable, Sendable {
    /// The player the link is about.
    public let player: ParticipantID
    /// The device that becomes an owner of `player`.
    public let device: AuthorID
    /// The device that signed the link.
    public let linkedBy: AuthorID

    /// A link of `device` to `player`, signed by `linkedBy`.
    public init(player: ParticipantID, device: AuthorID, linkedBy: AuthorID) {
        self.player = player
        self.device = device
        self.linkedBy = linkedBy
    }
}

extension Ownership {
    /// Ownership proven by signatures: each player's creator owns it, and a link counts when
    /// its signer is an owner, transitively. Independent of the order of `links`.
    public init(creators: [ParticipantID: AuthorID], links: [DeviceLink], successions: [DeviceSuccession] = []) {
        // A succession links its successor to every player, signed by its predecessor: it
        // counts for the players the predecessor owns, transitively, like any link.
        var players = Set(creators.keys)
        for link in links { players.insert(link.player) }
        let links =
            links
            + successions.flatMap { succession in
                players.sorted().map { DeviceLink(player: $0, device: succession.successor, linkedBy: succession.predecessor) }
            }
        var owners: [ParticipantID: Set<AuthorID>] = creators.mapValues { [$0] }
        var remaining = links
        var changed = true
        while changed {
            changed = false
            remaining.removeAll { link in
                guard owners[link.player]?.contains(link.linkedBy) == true else { return false }
                if owners[link.player, default: []].insert(link.device).inserted { changed = true }
                return true
            }
        }
        self.init(owners: owners)
    }
}
