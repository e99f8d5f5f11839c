import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit
import HyzerSync

/// A tournament for the benchmarks, made through the library as the devices would make it: the
/// director's laptop creates the players (four to a card, up to 144 on 36 cards) and starts a
/// round per card; each of `devices` phones takes the director's ops, scores four holes of its
/// card, one card entry a hole, and writes its directory of the shared folder; the director
/// reads them all. So the folder holds `devices + 1` author directories and every store
/// `devices + 1` authors.
struct Tournament {
    static let playerNames: [String] = {
        let first = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jay", "Kim", "Lou"]
        let last = ["Ash", "Birch", "Cedar", "Dale", "Elm", "Fern", "Glen", "Heath", "Iris", "Juniper", "Kale", "Linden"]
        return last.flatMap { family in first.map { "\($0) \(family)" } }
    }()

    let group: GroupMembership
    let director: Replica
    let phones: [Replica]
    /// Each card's round id and player names.
    let cards: [(round: String, players: [String])]
    let folder: DirectoryFolder

    /// Builds it under `directory`; the group's secret is fixed, every key is drawn.
    init(devices: Int, directory: URL) throws {
        group = GroupMembership(
            id: UUID(v5: "bench-tournament", namespace: SeededCourses.namespace), secret: Array(repeating: 31, count: 32))
        folder = DirectoryFolder(root: directory.appendingPathComponent("folder"))
        director = try Replica.create(at: directory.appendingPathComponent("director"), name: "director", kind: .laptop, owner: "Director")
        try director.join(group)
        let cardCount = min(36, max(1, devices / 4))
        var cards: [(round: String, players: [String])] = []
        for card in 0..<cardCount {
            let players = Array(Self.playerNames[(card * 4)..<(card * 4 + 4)])
            for name in players { _ = try director.addPlayer(name: name) }
            cards.append((try director.startRound(course: "Morley Field", players: players).id.lowercased, players))
        }
        self.cards = cards
        _ = try FolderSync(replica: director, folder: folder).run()
        let directorOps = try director.delta(above: VersionVector())
        var phones: [Replica] = []
        for index in 0..<devices {
            let phone = try Replica.create(at: directory.appendingPathComponent("phone-\(index)"), name: "phone-\(index)", kind: .phone)
            try phone.join(group)
            _ = try phone.ingest(directorOps)
            let card = cards[index % cards.count]
            let slot = index / cards.count
            for hole in (slot * 4)..<(slot * 4 + 4) {
                let text = card.players.enumerated().map { "\($0.element) \(2 + ($0.offset + hole + index) % 4)" }.joined(separator: ", ")
                try phone.recordCard(round: card.round, text: text, hole: hole % 18 + 1)
            }
            // Each phone wrote its directory before the others appeared, seeing only the director's.
            let view = FolderView(base: folder, visible: [director.author.hex, phone.author.hex])
            _ = try FolderSync(replica: phone, folder: view).run()
            phones.append(phone)
        }
        self.phones = phones
        _ = try FolderSync(replica: director, folder: folder).run()
    }

    /// A phone's folder sync that sees only its own directory and the director's, as if it
    /// synced before the others wrote theirs.
    func phoneSync(_ phone: Replica) throws {
        _ = try FolderSync(replica: phone, folder: FolderView(base: folder, visible: [director.author.hex, phone.author.hex])).run()
    }

    func close() throws {
        try director.close()
        for phone in phones { try phone.close() }
    }
}
