import HyzerKit
import NIOPosix

#if canImport(Glibc)
    import Glibc
#endif

/// How `serve` gives memory back to the system after a connection that moved a lot of it
/// (docs/performance.md, "Memory after a flood").
///
/// SQLite keeps a page cache of up to 32 MiB on each of the store's connections (the writer and
/// up to five readers), filled by a large ingest and kept after it; `Replica.releaseMemory`
/// empties them. And glibc's allocator keeps what a thread frees in that thread's arena for reuse, and raises its
/// threshold for taking large blocks straight from the kernel to the largest block freed so far
/// (up to 32 MiB). After a member's 8 MiB bundle, every later bundle part and reassembled bundle
/// so comes from the arenas, and what ingesting it freed stays resident, more after each flood as
/// connections land on other threads' arenas. Two settings bring it back: blocks of 256 KiB or
/// more (a bundle part, a reassembled bundle) always come from and go back to the kernel, and
/// after a connection that received `trimAfterBytes` the arenas' free pages are handed back
/// (`malloc_trim`, a few milliseconds). Both are looked up in the C library at run time (glibc's
/// `malloc.h` is not part of Swift's Glibc module); elsewhere, or without them, nothing is done.
enum ProcessMemory {
    /// Blocks at least this large are mapped from the kernel and unmapped when freed.
    static let mappedBlockBytes: Int32 = 256 * 1024
    /// A connection that received at least this much is followed by a trim.
    static let trimAfterBytes = 4 * 1024 * 1024

    /// Fixes the allocator's large-block threshold for the process (once, when `serve` starts).
    static func prepareForServe() {
        #if canImport(Glibc)
            typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
            let mMmapThreshold: Int32 = -3  // M_MMAP_THRESHOLD in glibc's malloc.h
            guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "mallopt") else { return }
            _ = unsafeBitCast(symbol, to: Mallopt.self)(mMmapThreshold, mappedBlockBytes)
        #endif
    }

    /// After a connection that received `bytesReceived`: empties the store's page caches and
    /// hands the allocator's free pages back. Runs on NIO's thread pool (it waits for store work).
    static func connectionEnded(bytesReceived: Int, replica: Replica) async {
        guard bytesReceived >= trimAfterBytes else { return }
        try? await NIOThreadPool.singleton.runIfActive {
            replica.releaseMemory()
            trim()
        }
    }

    /// Hands the allocator's free pages back to the kernel.
    static func trim() {
        #if canImport(Glibc)
            typealias MallocTrim = @convention(c) (Int) -> Int32
            guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "malloc_trim") else { return }
            _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
        #endif
    }
}
