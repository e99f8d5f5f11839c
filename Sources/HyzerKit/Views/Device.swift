import HyzerDomain

/// A replica of the group as its own signed device record describes it.
public struct Device: Hashable, Sendable {
    public let id: AuthorID
    public let name: String
    public let kind: DeviceKind
}
