/// What kind of device a replica runs on.
public enum DeviceKind: String, CaseIterable, Codable, Sendable {
    case phone, watch, laptop
}
