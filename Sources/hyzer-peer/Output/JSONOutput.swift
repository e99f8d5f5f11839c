import Foundation

/// The one JSON document a `--json` command prints: keys sorted, so two replicas holding the
/// same ops print the same bytes.
enum JSONOutput {
    static func print<Value: Encodable>(_ value: Value) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        Terminal.line(String(decoding: try encoder.encode(value), as: UTF8.self))
    }
}
