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

    /// The played round `bytes` encode, its strings read into `recent`: the course name, then
    /// each card's player id (refused when it names no participant) and name, each kept (shared,
    /// not made again) when the round decoded before had the same string at the same place, and
    /// so each card's participant (`participants`, checked only when its text changed). A round's
    /// strokes are one array that its cards slice: a round of a group that plays together costs a
    /// few allocations, not one per string and card.
    static func decodePlayed(_ bytes: [UInt8], reusing recent: inout [String], participants: inout [ParticipantID]) throws
        -> PlayedRound
    {
        var reader = ByteReader(bytes)
        let id = try reader.readUUID()
        let courseID = try reader.readUUID()
        if recent.isEmpty { recent.append("") }
        try reader.readString(maximumBytes: nameMaximum, into: &recent[0])
        let startedAt = try reader.readTimestamp()
        let holes = try reader.readCount(maximum: holeMaximum)
        var pars: [Int] = []
        pars.reserveCapacity(holes)
        for _ in 0..<holes { pars.append(try reader.readNumber()) }
        let count = try reader.readCount(maximum: cardMaximum)
        var strokes: [Int] = []
        strokes.reserveCapacity(count * holes)
        for card in 0..<count {
            while recent.count < 3 + 2 * card { recent.append("") }
            try reader.readString(maximumBytes: nameMaximum, into: &recent[1 + 2 * card])
            try reader.readString(maximumBytes: nameMaximum, into: &recent[2 + 2 * card])
            for _ in 0..<holes { strokes.append(try reader.readNumber()) }
        }
        try reader.expectEnd()
        var cards: [PlayedRound.Card] = []
        cards.reserveCapacity(count)
        for card in 0..<count {
            let text = recent[1 + 2 * card]
            if card == participants.count || participants[card].description != text {
                guard let id = ParticipantID(text: text) else { throw ByteDecodingError.outOfRange(field: "participant") }
                if card == participants.count { participants.append(id) } else { participants[card] = id }
            }
            cards.append(
                PlayedRound.Card(
                    playerID: participants[card], name: recent[2 + 2 * card], strokes: strokes[(card * holes)..<((card + 1) * holes)]))
        }
        return PlayedRound(id: id, courseID: courseID, courseName: recent[0], pars: pars, startedAt: startedAt, cards: cards)
    }
}

extension ByteWriter {
    fileprivate mutating func write(number value: Int) { writeVarint(UInt64(bitPattern: Int64(value))) }
}

extension ByteReader {
    fileprivate mutating func readNumber() throws(ByteDecodingError) -> Int { Int(Int64(bitPattern: try readVarint())) }
}
