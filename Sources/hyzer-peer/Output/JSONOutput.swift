import Foundation
import HyzerKit

/// The one JSON document a `--json` command prints (`DocumentEncoding`: keys sorted).
enum JSONOutput {
    static func print<Value: Encodable>(_ value: Value) throws {
        Terminal.line(String(decoding: try DocumentEncoding.encode(value), as: UTF8.self))
    }
}
