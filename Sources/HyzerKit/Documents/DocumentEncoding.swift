import Foundation

/// The one JSON encoding of every document the CLI's `--json` and the web's `/api` print: keys
/// sorted, so two replicas holding the same ops print the same bytes.
public enum DocumentEncoding {
    /// `value` as JSON with sorted keys; throws what `JSONEncoder` throws (a non-finite number).
    public static func encode<Value: Encodable>(_ value: Value) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }
}
