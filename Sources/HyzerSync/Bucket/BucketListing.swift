import Foundation
import XMLCoder

/// One page of a `ListObjectsV2` answer, as S3 writes it in XML, read with XMLCoder
/// (docs/bucket-sync.md, "Dependencies").
struct ListBucketPage: Decodable {
    /// One object of the page.
    struct Object: Decodable {
        let key: String
        let size: UInt64
        let eTag: String?

        enum CodingKeys: String, CodingKey {
            case key = "Key"
            case size = "Size"
            case eTag = "ETag"
        }
    }

    /// A "directory": a prefix up to the delimiter.
    struct CommonPrefix: Decodable {
        let prefix: String

        enum CodingKeys: String, CodingKey { case prefix = "Prefix" }
    }

    let isTruncated: Bool?
    let nextContinuationToken: String?
    let contents: [Object]?
    let commonPrefixes: [CommonPrefix]?

    enum CodingKeys: String, CodingKey {
        case isTruncated = "IsTruncated"
        case nextContinuationToken = "NextContinuationToken"
        case contents = "Contents"
        case commonPrefixes = "CommonPrefixes"
    }

    /// The page in `bytes`; throws `BucketError.malformedListing` for anything else.
    ///
    /// Only what S3 writes is handed to the parser: UTF-8, an XML declaration naming no other
    /// encoding, then elements, attributes, text and character references, with no processing
    /// instruction, comment, CDATA section or document type (nor its entities). Foundation's
    /// `XMLParser` on Linux traps on a name that is not UTF-8 and on a processing instruction with
    /// no data (both found by FuzzBucketListing, docs/fuzzing.md).
    static func decode(_ bytes: [UInt8]) throws -> ListBucketPage {
        guard let text = String(bytes: bytes, encoding: .utf8), Self.isPlainListing(text) else {
            throw BucketError.malformedListing(reason: "not the plain UTF-8 XML a listing is")
        }
        do {
            return try XMLDecoder().decode(ListBucketPage.self, from: Data(bytes))
        } catch {
            throw BucketError.malformedListing(reason: "not a ListObjectsV2 result")
        }
    }

    /// Whether `text` is an XML declaration (holding no `<` or `>`) naming UTF-8 or no encoding,
    /// or none at all, then markup with no `<?` and no `<!`, and no NUL: what S3 writes, listings
    /// and errors alike.
    static func isPlainListing(_ text: String) -> Bool {
        var body = Substring(text)
        if text.hasPrefix("<?xml ") {
            guard let end = text.range(of: "?>") else { return false }
            let declaration = text[..<end.lowerBound].dropFirst(2).lowercased()
            guard !declaration.contains("<"), !declaration.contains(">") else { return false }
            if let encoding = declaration.range(of: "encoding") {
                let named = declaration[encoding.upperBound...].drop { $0 == " " || $0 == "=" }
                guard named.hasPrefix("\"utf-8\"") || named.hasPrefix("'utf-8'") else { return false }
            }
            body = text[end.upperBound...]
        }
        return !body.contains("<?") && !body.contains("<!") && !body.utf8.contains(0)
    }
}

/// An S3 error answer: `<Error><Code>…</Code><Message>…</Message></Error>`.
struct BucketErrorBody: Decodable {
    let code: String?
    let message: String?

    enum CodingKeys: String, CodingKey {
        case code = "Code"
        case message = "Message"
    }

    /// The code and message in `bytes`, or empty strings for a body that is not S3's error XML.
    static func decode(_ bytes: [UInt8]) -> (code: String, message: String) {
        guard let text = String(bytes: bytes, encoding: .utf8), ListBucketPage.isPlainListing(text),
            let body = try? XMLDecoder().decode(BucketErrorBody.self, from: Data(bytes))
        else { return ("", "") }
        return (String((body.code ?? "").prefix(64)), String((body.message ?? "").prefix(200)))
    }
}

/// Every object under a prefix, and the "directories" a delimiter grouped.
public struct BucketListing: Sendable, Equatable {
    /// One object: its key, size and ETag (quotes removed).
    public struct Object: Sendable, Equatable {
        /// The full key.
        public let key: String
        /// Its size in bytes, as the listing says.
        public let size: UInt64
        /// Its ETag, as the listing says: what tells a replaced object from the one listed.
        public let eTag: String
    }

    /// The objects, in the store's (key) order.
    public var objects: [Object] = []
    /// The common prefixes (with a delimiter), each ending with it.
    public var prefixes: [String] = []
}

/// One page of a `ListObjectsV2` answer, as a store sends it: hostile input (anyone holding the
/// bucket's credentials, or the store itself, writes it), read by XMLCoder within the client's
/// bound on a page's bytes, and fuzzed (FuzzBucketListing, docs/fuzzing.md).
public struct BucketListingPage: Sendable, Equatable {
    /// The page's objects (ETags unquoted) and common prefixes.
    public let listing: BucketListing
    /// Whether more pages follow.
    public let isTruncated: Bool
    /// The token that asks for the next page, when the page says so.
    public let nextContinuationToken: String?

    /// The page in `bytes`; throws `BucketError.malformedListing` for anything else.
    public init(decoding bytes: [UInt8]) throws {
        let page = try ListBucketPage.decode(bytes)
        var listing = BucketListing()
        for object in page.contents ?? [] {
            listing.objects.append(.init(key: object.key, size: object.size, eTag: Self.unquoted(object.eTag ?? "")))
        }
        listing.prefixes = (page.commonPrefixes ?? []).map(\.prefix)
        self.listing = listing
        isTruncated = page.isTruncated == true
        nextContinuationToken = page.nextContinuationToken
    }

    /// An ETag without the quotes S3 puts around it.
    static func unquoted(_ eTag: String) -> String {
        guard eTag.count >= 2, eTag.hasPrefix("\""), eTag.hasSuffix("\"") else { return eTag }
        return String(eTag.dropFirst().dropLast())
    }
}
