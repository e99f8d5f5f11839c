import Foundation
import HyzerDomain

/// A round as `round list --json`, `round show --json` and the web's `/api/rounds` print it.
public struct RoundDocument: Codable, Hashable, Sendable {
    /// One participant of the round.
    public struct Member: Codable, Hashable, Sendable {
        /// The participant: a registered player or a guest of the round (its JSON: the player's
        /// lowercase UUID, or `guest:` and the guest's).
        public let id: ParticipantID
        /// The participant's name in the round.
        public let name: String
        /// Whether the participant is a guest of this round only.
        public let isGuest: Bool
    }

    /// The round's id (its JSON: the lowercase UUID).
    public let id: RoundID
    /// The course's name when the round started.
    public let course: String
    /// The course's id (its JSON: the lowercase UUID).
    public let courseID: CourseID
    /// Where the round is in its life (its JSON: `active`, `awaitingFinalization` or `completed`).
    public let status: RoundStatus
    /// The participant whose devices may resolve disputes and finish the round (its JSON: as a
    /// member's `id`).
    public let organizerID: ParticipantID
    /// The start op's clock reading, in milliseconds since the Unix epoch.
    public let startedAt: UInt64
    /// The number of holes.
    public let holeCount: Int
    /// The par of hole `n` at index `n - 1`, as the round copied them.
    public let pars: [Int]
    /// The participants, in the start op's order.
    public let participants: [Member]
    /// The round signature as this replica computes it now (hex), and every device's receipt
    /// (docs/formats.md, "Round signature").
    public let signature: String
    /// Every receipt this replica holds for the round.
    public let receipts: [Receipt]
    /// Scores written before the finish that the finisher received after it: not counted
    /// (docs/rules.md, "Late scores").
    public let late: [LateScoreDocument]

    /// One device's receipt.
    public struct Receipt: Codable, Hashable, Sendable {
        /// The signing device's key (its JSON: lowercase hexadecimal).
        public let device: DeviceID
        /// The round signature it signed, hexadecimal.
        public let signature: String
    }

    /// The document of `view`'s round with `receipts`.
    public init(_ view: RoundView, receipts: [RoundReceipt]) {
        signature = Hex.encode(RoundSignature.of(view.evaluation))
        self.receipts = receipts.map { Receipt(device: $0.device, signature: Hex.encode($0.signature)) }
        let round = view.round
        id = RoundID(round.id)
        course = round.courseName
        courseID = CourseID(round.courseID)
        status = view.evaluation.status
        organizerID = round.organizerID
        startedAt = round.startedAt.physicalMilliseconds
        holeCount = round.holeCount
        pars = round.pars
        participants = round.participants.map { Member(id: $0.id, name: $0.name, isGuest: $0.isGuest) }
        late = LateScoreDocument.all(view)
    }
}
