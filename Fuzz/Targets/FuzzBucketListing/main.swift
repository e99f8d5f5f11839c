import FuzzDriver
import FuzzSupport
import HyzerSync

/// One page of a bucket listing as a store answers it (docs/bucket-sync.md): anyone holding the
/// bucket's credentials, or the store itself, writes it. Read as `BucketListingPage`, as
/// `BucketClient` reads every page, within the client's bound on a page's bytes.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzDriver.bytes(data, size)
    guard bytes.count <= BucketClient.listingPageBytesMax, let page = try? BucketListingPage(decoding: bytes) else { return 0 }
    FuzzFixtures.require(page.listing.objects.count <= bytes.count, "each object listed took bytes of the page")
    for object in page.listing.objects {
        FuzzFixtures.require(object.eTag.utf8.count <= bytes.count, "an ETag is no longer than the page")
    }
    _ = page.isTruncated
    _ = page.nextContinuationToken
    return 0
}

FuzzDriver.run(fuzz)
