/// What kind of device a replica runs on.
public enum DeviceKind: String, CaseIterable, Codable, Sendable {
    /// A phone: the device a player usually scores on.
    case phone
    /// A watch, paired with its owner's phone.
    case watch
    /// A laptop or another computer: a club's or organizer's machine, or a server running `serve`.
    case laptop
}
