/// What one `sync --folder` did.
public struct FolderSyncReport: Encodable, Equatable, Sendable {
    /// A file that was refused, with the check that failed.
    public struct Rejection: Encodable, Equatable, Sendable {
        public let file: String
        public let reason: String
    }

    public var members = 0
    public var bundlesWritten = 0
    public var bundlesRead = 0
    public var bundlesSkipped = 0
    /// Bundles of ours that every member holds, retired this sync: removed a grace period later.
    public var bundlesRetired = 0
    /// Bundles of ours removed this sync, a grace period after they were retired.
    public var bundlesDeleted = 0
    public var rejected: [Rejection] = []
    /// Files that are not ours to read: temporary, partial, conflict copies, anything unknown.
    public var ignored: [String] = []
    public var opsIngested = 0
    /// Ops ingested that finish a round.
    public var finishesIngested = 0
    public var opsAlreadyHeld = 0
    public var opsPending = 0
    public var bytesRead = 0
    /// Of `bytesRead`, the bytes of files refused for their content (junk, forgeries, damage):
    /// at most `FolderLayout.refusedBytesPerSyncMax` in one sync (docs/folder-sync.md, "Junk").
    public var bytesRefused = 0
    /// Files not read this sync because junk already used its share of the sync: read next time.
    public var filesDeferred = 0
    public var bytesWritten = 0
    public var vectorPublished = false
    /// Devices this replica admitted with an invitation this sync (docs/folder-sync.md, "Joining").
    public var devicesAdmitted = 0

    public init() {}
}
