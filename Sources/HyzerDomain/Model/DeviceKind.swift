/// What kind of device a replica runs on, as its signed device record (`deviceRegistered`) states it;
/// the raw value is the text documents and the command line show. Never reorder the cases: the
/// op encoding writes a kind as its index in `allCases` (phone 0, watch 1, laptop 2).
public enum DeviceKind: String, CaseIterable, Codable, Sendable {
    /// A phone.
    case phone
    /// A watch.
    case watch
    /// A laptop or another computer.
    case laptop
}
