import HyzerDomain

extension Replica {
    /// The ids of every invitation in this replica's log (docs/security.md, "Invitations"): what
    /// tells a folder sync whether a join request it could not decide before can be decided now.
    public func invitationIDs() throws -> Set<[UInt8]> {
        try read { db in
            var ids: Set<[UInt8]> = []
            for op in try ViewReader(db: db).ops(of: .inviteIssued) {
                guard case .inviteIssued(let key, _, _) = op.payload else { continue }
                ids.insert(Invitation.id(ofKey: key))
            }
            return ids
        }
    }
}
