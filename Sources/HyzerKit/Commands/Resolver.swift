import HyzerDomain

/// Finds the one entity a user's text names: its exact id, its exact name, or an
/// unambiguous prefix of its id (case-insensitive), tried in that order.
enum Resolver {
    struct Candidate {
        let id: String
        let name: String
    }

    static func resolve(_ text: String, among candidates: [Candidate], kind: String) throws -> String {
        let lowered = text.lowercased()
        if let exact = candidates.first(where: { $0.id == lowered }) { return exact.id }
        let named = candidates.filter { $0.name == text }
        if named.count == 1 { return named[0].id }
        if named.count > 1 { throw ReplicaError.ambiguous(kind: kind, text: text, matches: named.map { short($0.id) }) }
        let prefixed =
            lowered.isEmpty
            ? []
            : candidates.filter { candidate in
                candidate.id.hasPrefix(lowered)
                    || (candidate.id.hasPrefix(Participant.guestPrefix)
                        && candidate.id.dropFirst(Participant.guestPrefix.count).hasPrefix(lowered))
            }
        switch prefixed.count {
        case 1: return prefixed[0].id
        case 0: throw ReplicaError.unknown(kind: kind, text: text)
        default: throw ReplicaError.ambiguous(kind: kind, text: text, matches: prefixed.map { "\($0.name) (\(short($0.id)))" })
        }
    }

    private static func short(_ id: String) -> String { String(id.prefix(id.hasPrefix("guest:") ? 14 : 8)) }
}
