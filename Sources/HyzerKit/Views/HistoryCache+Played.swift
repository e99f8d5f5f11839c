import HyzerDomain

/// The cache's encoding of a played round (docs/store.md, "The history cache"): the round's ids,
/// course name, start clock and pars, then each full card — player id, name, a stroke count per
/// par. Numbers are varints of their 64-bit two's complement.
extension HistoryCache {
    private static let nameMaximum = 4096
    private static let holeMaximum = 1000
    private static let cardMaximum = 10_000

    static func encode(_ played: PlayedRound) -> [UInt8] {
        var writer = ByteWriter(capacity: 64 + played.cards.count * (48 + played.pars.count))
        writer.write(played.id)
        writer.write(played.courseID)
        writer.write(played.courseName)
        writer.write(played.startedAt)
        writer.writeVarint(UInt64(played.pars.count))
        for par in played.pars { writer.write(number: par) }
        writer.writeVarint(UInt64(played.cards.count))
        for card in played.cards {
            writer.write(card.playerID)
            writer.write(card.name)
            for strokes in card.strokes { writer.write(number: strokes) }
        }
        return writer.bytes
    }

    static func decodePlayed(_ bytes: [UInt8]) throws -> PlayedRound {
        var reader = ByteReader(bytes)
        let id = try reader.readUUID()
        let courseID = try reader.readUUID()
        let courseName = try reader.readString(maximumBytes: nameMaximum)
        let startedAt = try reader.readTimestamp()
        let holes = try reader.readCount(maximum: holeMaximum)
        var pars: [Int] = []
        pars.reserveCapacity(holes)
        for _ in 0..<holes { pars.append(try reader.readNumber()) }
        let count = try reader.readCount(maximum: cardMaximum)
        var cards: [PlayedRound.Card] = []
        cards.reserveCapacity(count)
        for _ in 0..<count {
            let player = try reader.readString(maximumBytes: nameMaximum)
            let name = try reader.readString(maximumBytes: nameMaximum)
            var strokes: [Int] = []
            strokes.reserveCapacity(holes)
            for _ in 0..<holes { strokes.append(try reader.readNumber()) }
            cards.append(PlayedRound.Card(playerID: player, name: name, strokes: strokes))
        }
        try reader.expectEnd()
        return PlayedRound(id: id, courseID: courseID, courseName: courseName, pars: pars, startedAt: startedAt, cards: cards)
    }
}

extension ByteWriter {
    fileprivate mutating func write(number value: Int) { writeVarint(UInt64(bitPattern: Int64(value))) }
}

extension ByteReader {
    fileprivate mutating func readNumber() throws(DecodingError) -> Int { Int(Int64(bitPattern: try readVarint())) }
}
