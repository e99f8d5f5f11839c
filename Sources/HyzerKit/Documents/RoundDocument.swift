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

    public init(_ view: RoundView) {
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
    }
}
