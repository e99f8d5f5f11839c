import Foundation
import HyzerDomain

/// A round as `round list --json`, `round show --json` and the web's `/api/rounds` print it.
public struct RoundDocument: Encodable, Sendable {
    public struct Member: Encodable, Sendable {
        public let id: String
        public let name: String
        public let isGuest: Bool
    }

    public let id: String
    public let course: String
    public let courseID: String
    public let status: String
    public let organizerID: String
    public let startedAt: UInt64
    public let holeCount: Int
    public let pars: [Int]
    public let participants: [Member]
    /// The round signature as this replica computes it now (hex), and every device's receipt
    /// (docs/formats.md, "Round signature").
    public let signature: String
    public let receipts: [Receipt]
    /// Scores written before the finish that the finisher received after it: not counted
    /// (docs/rules.md, "Late scores").
    public let late: [LateScoreDocument]

    public struct Receipt: Encodable, Sendable {
        public let device: String
        public let signature: String
    }

    public init(_ view: RoundView, receipts: [RoundReceipt]) {
        signature = Hex.encode(RoundSignature.of(view.evaluation))
        self.receipts = receipts.map { Receipt(device: $0.device.hex, signature: Hex.encode($0.signature)) }
        let round = view.round
        id = round.id.lowercased
        course = round.courseName
        courseID = round.courseID.lowercased
        status = view.evaluation.status.rawValue
        organizerID = round.organizerID
        startedAt = round.startedAt.physicalMilliseconds
        holeCount = round.holeCount
        pars = round.pars
        participants = round.participants.map { Member(id: $0.id, name: $0.name, isGuest: $0.isGuest) }
        late = LateScoreDocument.all(view)
    }
}
