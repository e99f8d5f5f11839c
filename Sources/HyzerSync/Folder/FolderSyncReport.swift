/// What one `sync --folder` did.
public struct FolderSyncReport: Encodable, Equatable, Sendable {
    /// A file that was refused, with the check that failed.
    public struct Rejection: Encodable, Equatable, Sendable {
        /// The file's path in the folder.
        public let file: String
        /// The check that failed.
        public let reason: String
    }

    /// Other members whose vector this replica knows (read this sync or remembered), removed ones aside.
    public var members = 0
    /// Bundles this replica wrote.
    public var bundlesWritten = 0
    /// Bundles read and ingested.
    public var bundlesRead = 0
    /// Bundles not read again: unchanged since an earlier sync decided them.
    public var bundlesSkipped = 0
    /// Bundles of ours that every member holds, retired this sync: removed a grace period later.
    public var bundlesRetired = 0
    /// Bundles of ours removed this sync, a grace period after they were retired.
    public var bundlesDeleted = 0
    /// Files refused, each with its reason.
    public var rejected: [Rejection] = []
    /// Files that are not ours to read: temporary, partial, conflict copies, anything unknown.
    public var ignored: [String] = []
    /// Ops newly added to the store.
    public var opsIngested = 0
    /// Ops ingested that finish a round.
    public var finishesIngested = 0
    /// Ops read that the store already held.
    public var opsAlreadyHeld = 0
    /// Ops the store holds aside after the sync, waiting for a gap to fill or the clock.
    public var opsPending = 0
    /// Bytes of files read.
    public var bytesRead = 0
    /// Of `bytesRead`, the bytes of files refused for their content (junk, forgeries, damage):
    /// at most `FolderLayout.refusedBytesPerSyncMax` in one sync (docs/folder-sync.md, "Junk").
    public var bytesRefused = 0
    /// Files not read this sync because junk already used its share of the sync: read next time.
    public var filesDeferred = 0
    /// Bytes of files written.
    public var bytesWritten = 0
    /// Whether this sync published a new vector of this replica.
    public var vectorPublished = false
    /// Devices this replica admitted with an invitation this sync (docs/folder-sync.md, "Joining").
    public var devicesAdmitted = 0

    /// A report of nothing done.
    public init() {}
}
