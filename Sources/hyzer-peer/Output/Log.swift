import Foundation
import Logging

/// Structured logs on standard error (swift-log).
enum Log {
    private static let bootstrapped: Void = LoggingSystem.bootstrap { label in
        StreamLogHandler.standardError(label: label)
    }

    static func make(_ label: String, level: Logger.Level = .warning) -> Logger {
        _ = bootstrapped
        var logger = Logger(label: "hyzer.\(label)")
        logger.logLevel = level
        return logger
    }
}
