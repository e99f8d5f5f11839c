import HyzerDomain

/// A replica of the group as its own signed device record describes it.
public struct Device: Identifiable, Hashable, Sendable, Codable {
    /// The device's key.
    public let id: AuthorID
    /// The name the device gave itself.
    public let name: String
    /// What kind of device it is.
    public let kind: DeviceKind
}
