extension Replica {
    /// Gives back the memory SQLite keeps between uses: the page caches of the writer and of
    /// the readers (up to 32 MiB each, filled by a large ingest; the readers are closed and
    /// reopened on the next read). `serve` calls it after a connection that received a lot
    /// (docs/performance.md, "Memory after a flood"). Waits for the store's current work.
    public func releaseMemory() {
        database.releaseMemory()
    }
}
