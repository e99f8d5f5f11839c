import FuzzDriver
import FuzzSupport

@testable import HyzerSync

/// A file in a shared folder or passed to `import`: opened with the group's key, then read as
/// a bundle. The input is also sealed and opened again, which must give it back unchanged.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzDriver.bytes(data, size)
    if let plain = try? SealedFile.open(bytes, group: FuzzFixtures.group).bundle {
        _ = try? Bundle(decoding: plain, expectedGroup: FuzzFixtures.group.id)
    }
    let sealed = SealedFile.seal(bytes, group: FuzzFixtures.group)
    FuzzFixtures.require((try? SealedFile.open(sealed, group: FuzzFixtures.group).bundle) == bytes, "a sealed file opens to its bundle")
    return 0
}

FuzzDriver.run(fuzz)
