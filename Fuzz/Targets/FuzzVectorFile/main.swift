import FuzzDriver
import FuzzSupport
import HyzerDomain
import HyzerKit

@testable import HyzerSync

/// A member's vector file in a shared folder (a sealed bundle with no segments): the input
/// is the bundle, signed again by the fixture sender and sealed, then read as folder sync
/// reads it; the vector it yields then drives the choice of what to write for each author.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let resigned = BundleResigning.resign(FuzzDriver.bytes(data, size)) else { return 0 }
    let sealed = SealedFile.seal(resigned, group: FuzzFixtures.group)
    guard
        let bundle = try? Bundle(
            decoding: try SealedFile.open(sealed, group: FuzzFixtures.group).bundle, expectedGroup: FuzzFixtures.group.id)
    else { return 0 }
    let vector = bundle.senderVector
    let lacking = FolderSync.lowest([vector], authors: vector.heads.keys)
    let written = vector.sortedEntries.map { BundleRanges.Range(author: $0.author, first: 1, last: $0.sequence) }
    for author in vector.heads.keys {
        FuzzFixtures.require(
            FolderSync.deltaStart(of: author, lacking: lacking, written: written) >= lacking[author], "writing never goes back")
    }
    return 0
}

FuzzDriver.run(fuzz)
