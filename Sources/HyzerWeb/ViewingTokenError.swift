import Foundation

/// Why the viewing token's salt (`ViewingToken.saltFileName` in the replica directory) cannot
/// be read or written.
public enum ViewingTokenError: Error, Equatable, Sendable, LocalizedError, CustomStringConvertible {
    /// The file at `path` is not a salt this replica wrote.
    case notASalt(path: String)
    /// The new salt could not be written to `path`.
    case cannotWrite(path: String)
    /// The new salt could not be renamed over `path`.
    case cannotReplace(path: String)

    public var errorDescription: String? { description }

    public var description: String {
        switch self {
        case .notASalt(let path): "\(path) is not a viewing-token salt; remove it, or rotate the viewing token"
        case .cannotWrite(let path): "cannot write \(path); check the replica directory's permissions"
        case .cannotReplace(let path): "cannot replace \(path); check the replica directory's permissions"
        }
    }
}
