import Foundation

/// Dates in human output, in UTC so that every replica prints the same text.
public enum DateText {
    /// The UTC day of `milliseconds` since the Unix epoch: `2026-11-27`.
    public static func day(_ milliseconds: UInt64) -> String {
        String(minute(milliseconds).prefix(10))
    }

    /// The UTC minute of `milliseconds` since the Unix epoch: `2026-11-27 09:30 UTC`.
    public static func minute(_ milliseconds: UInt64) -> String {
        let text = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
        return text.prefix(16).replacingOccurrences(of: "T", with: " ") + " UTC"
    }
}
