/// What a run found as it went: when it converged and on what, and what it cost.
struct RunOutcome {
    /// When every replica held what it must and the checks passed.
    var convergedAt: UInt64?
    /// When the last round was finished, and when the last device to converge took in its last op.
    var lastFinishAt: UInt64?
    var finalViewsAt: UInt64?
    /// The converged replicas' views and stores, digested.
    var standingsDigest: String?
    var storeDigest: String?
    /// Bytes the devices sent: frames on connections and files in the folder.
    var bytesSent = 0
}
