import Foundation
import HyzerKit
import HyzerSync
import Logging

/// Sync (docs/embedding.md, "Sync"): one call starts what `serve` runs, and the controller it
/// returns follows and stops it.
extension HyzerEngine {
    /// Starts syncing as `plan` says and returns its controller. A device that holds an
    /// invitation and no group is admitted by the first member it reaches, then syncs. Logs go
    /// to `logger` (by default the app's logging system, at `notice`). Throws
    /// `EngineError.notInAGroup` when there is neither a group nor an invitation.
    public func startSync(_ plan: SyncPlan, logger: Logger? = nil) async throws -> SyncController {
        let canSync = try await perform(.read) { replica in try replica.group() != nil || replica.pendingInvitation() != nil }
        guard canSync else { throw EngineError.notInAGroup }
        let controller = SyncController(replica: replica)
        controller.start(plan, store: store, logger: logger ?? Self.syncLogger)
        syncs.append(controller)
        return controller
    }

    static let syncLogger: Logger = {
        var logger = Logger(label: "hyzer-engine.sync")
        logger.logLevel = .notice
        return logger
    }()
}
