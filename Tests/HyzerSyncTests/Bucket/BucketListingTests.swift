import Foundation
import HyzerSync
import Testing

/// A listing page is read as S3 writes it, and anything else is one malformed-listing error
/// (docs/bucket-sync.md; fuzzed as FuzzBucketListing).
@Suite struct BucketListingTests {
    @Test func aPageAsS3WritesItReadsWithItsObjectsPrefixesAndToken() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>league</Name><IsTruncated>true</IsTruncated>\
            <NextContinuationToken>1ueGcxLPRx1Tr</NextContinuationToken><Contents><Key>2026/hyzer/g/a/0f.hzb</Key>\
            <ETag>&quot;9b2cf535f27731c974343645a3985328&quot;</ETag><Size>1434</Size></Contents>\
            <CommonPrefixes><Prefix>2026/hyzer/g/joins/</Prefix></CommonPrefixes></ListBucketResult>
            """
        let page = try BucketListingPage(decoding: Array(xml.utf8))
        let objects = page.listing.objects.map { "\($0.key) \($0.size) \($0.eTag)" }
        #expect(objects == ["2026/hyzer/g/a/0f.hzb 1434 9b2cf535f27731c974343645a3985328"])
        #expect(page.listing.prefixes == ["2026/hyzer/g/joins/"])
        #expect(page.isTruncated)
        #expect(page.nextContinuationToken == "1ueGcxLPRx1Tr")
    }

    /// Junk, and what S3 never writes, among it the two inputs on which Foundation's parser traps
    /// (found by FuzzBucketListing): a name that is not UTF-8 and a processing instruction with
    /// no data. A document type (and so its entities) and comments are not read either.
    static let refused: [[UInt8]] = {
        let texts: [String] = [
            "", "not xml", "<ListBucketResult><Contents><Key>k</Key><Size>-1</Size></Contents></ListBucketResult>",
            "<?xml version=\"1.0\"g=\"UTF-8\"?>\n<Li<?xm?>\n<Bsis", "<?xmlfoo?><ListBucketResult/>",
            "<?xml version=\"1.<?xml ver01/\"><NameEleague</Name><?Prefix?>\n<ListBucketResu0",
            "<!DOCTYPE a [<!ENTITY e \"x\">]><ListBucketResult><Name>&e;</Name></ListBucketResult>",
            "<ListBucketResult><!-- a note --></ListBucketResult>",
            "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><ListBucketResult/>",
        ]
        let notUTF8: [UInt8] =
            Array("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ListBucketResult><NextC".utf8) + [0xEF]
            + Array("ntinuationToken/></ListBucketResult>".utf8)
        return texts.map { Array($0.utf8) } + [notUTF8]
    }()

    @Test(arguments: refused)
    func anythingElseIsAMalformedListing(_ bytes: [UInt8]) {
        #expect(throws: BucketError.self) { try BucketListingPage(decoding: bytes) }
    }

    @Test func anEmptyListingReads() throws {
        let page = try BucketListingPage(
            decoding: Array(#"<?xml version="1.0" encoding="UTF-8"?><ListBucketResult></ListBucketResult>"#.utf8))
        #expect(page.listing.objects.isEmpty && !page.isTruncated)
    }
}
