import Foundation

extension Replica {
    /// The round the user's text names (id, id prefix, or `latest`), with its views.
    public func roundView(matching text: String) throws -> RoundView {
        guard let view = try roundView(try resolveRound(text)) else { throw ReplicaError.unknown(kind: "round", text: text) }
        return view
    }
}
