import Foundation

/// A fresh directory under the system's temporary directory, removed when the value dies.
public final class TemporaryDirectory: Sendable {
    public let url: URL

    public init(_ label: String = "hyzer") {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(label)-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A path inside the directory.
    public func path(_ name: String) -> URL { url.appendingPathComponent(name) }

    deinit { try? FileManager.default.removeItem(at: url) }
}
