import Foundation
import HyzerCrypto
import HyzerKit

extension Replica {
    /// Joins `member`'s group as an invited device (docs/security.md, "Membership"): an
    /// invitation of `member` with a secret made from this device's key, the request, the
    /// admission and its answer, then `member`'s ops (the admission among them), as a join's
    /// first sync brings them.
    public func joinInvited(by member: Replica) throws {
        let invitation = try member.issueInvitation(
            secret: Blake2b.hash256(Array("test-invitation".utf8) + author.bytes), expiresAt: UInt64(Int64.max), uses: 1)
        try join(with: invitation, through: member)
        _ = try ingest(try member.delta(above: try versionVector()))
    }
}
