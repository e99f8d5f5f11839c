import FuzzDriver
import FuzzSupport
import HyzerKit
import HyzerSync

/// Structure-aware: the input describes segments by their tails (`IngestInput`); they are
/// chained, signed, bundled, sealed and imported into a real store as `hyzer-peer import`
/// does, which reaches ingest, pending segments, fork detection and the materializer.
/// Importing the same bundle again must apply nothing: ingest is idempotent.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = IngestInput(decoding: FuzzDriver.bytes(data, size))
    let sealed = input.sealedBundle()
    do {
        let first = try BundleFiles.import(sealed, into: store.replica)
        guard first.opsApplied > 0 || first.segmentsPending > 0 || !first.rejected.isEmpty else { return 0 }
        let again = try BundleFiles.import(sealed, into: store.replica)
        FuzzFixtures.require(again.opsApplied == 0, "importing a bundle twice applies its ops once")
        try store.reset()
    } catch is BundleError {
        return 0
    } catch {
        fatalError("the store failed: \(error)")
    }
    return 0
}

/// The store, created when the process starts.
nonisolated(unsafe) private let store = FuzzFixtures.require { try FuzzStore() }

FuzzDriver.run(fuzz)
