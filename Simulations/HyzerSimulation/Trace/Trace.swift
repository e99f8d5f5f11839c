import HyzerCrypto
import HyzerDomain

/// The run's trace: every event as one line of text, folded into a rolling BLAKE2b-256 hash
/// (`hash = BLAKE2b(hash ‖ time ‖ line)`). Two runs of one seed on one build give the same
/// `traceHash` exactly when they did the same things in the same order with the same results.
struct Trace {
    private(set) var hash = Blake2b.hash256(Array("hyzer-simulation-trace/v1".utf8))
    private(set) var count = 0
    /// The latest lines, for a failure's context.
    private(set) var recent: [String] = []
    /// Every line, when asked for (`simulate --trace`).
    let keepsLines: Bool
    private(set) var lines: [String] = []
    private static let recentKept = 30

    init(keepsLines: Bool = false) {
        self.keepsLines = keepsLines
    }

    /// Records `line` at simulated time `milliseconds` after the start.
    mutating func record(_ milliseconds: UInt64, _ line: String) {
        let text = Self.stamp(milliseconds) + " " + line
        hash = Blake2b.hash256(hash + Array(text.utf8))
        count += 1
        recent.append(text)
        if recent.count > Self.recentKept { recent.removeFirst(recent.count - Self.recentKept) }
        if keepsLines { lines.append(text) }
    }

    /// The hash so far, in hexadecimal.
    var hex: String { Hex.encode(hash) }

    /// `h:mm:ss.mmm` of simulated time.
    static func stamp(_ milliseconds: UInt64) -> String {
        let seconds = milliseconds / 1_000
        let minutes = seconds / 60
        func two(_ value: UInt64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let millis = milliseconds % 1_000
        let three = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
        return "\(minutes / 60):\(two(minutes % 60)):\(two(seconds % 60)).\(three)"
    }
}
