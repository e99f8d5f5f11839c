import Foundation
import HyzerKit
import HyzerSync
import Logging

/// Sync (docs/embedding.md, "Sync"): one call starts what `serve` runs, and the controller it
/// returns follows and stops it.
extension HyzerEngine {
    /// Starts syncing as `plan` says and returns its controller. A device that holds an
    /// invitation and no group is admitted by the first member it reaches, then syncs (unless
    /// `plan.joinsFirst` is false: then it throws `GroupError.awaitingAdmission`, and
    /// `GroupError.noGroup` when there is neither a group nor an invitation). Logs go
    /// to `logger` (by default the app's logging system, at `notice`). Throws
    /// `EngineError.notInAGroup` when there is neither a group nor an invitation.
    public func startSync(_ plan: SyncPlan, logger: Logger? = nil) async throws -> SyncController {
        if plan.joinsFirst {
            let canSync = try await perform(.read) { replica in try replica.group() != nil || replica.pendingInvitation() != nil }
            guard canSync else { throw EngineError.notInAGroup }
        } else {
            _ = try await perform(.read) { try $0.requireGroup() }
        }
        let changes = try await subscribe()
        let controller = SyncController(
            replica: replica, plan: plan, store: store, logger: logger ?? Self.syncLogger,
            subscribe: { [weak self] in
                guard let self else { throw EngineError.closed }
                return try await self.subscribe()
            },
            released: { [weak self] controller in Task { await self?.forget(controller) } })
        controller.start(changes: changes)
        syncs.append(controller)
        return controller
    }

    /// Lets go of a stopped sync.
    private func forget(_ controller: SyncController) {
        syncs.removeAll { $0 === controller }
    }

    /// How many syncs the engine holds: those started and not stopped.
    var syncCount: Int { syncs.count }

    static let syncLogger: Logger = {
        var logger = Logger(label: "hyzer-engine.sync")
        logger.logLevel = .notice
        return logger
    }()
}
