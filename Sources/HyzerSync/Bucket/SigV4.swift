import Foundation
import HyzerCrypto
import HyzerDomain

/// AWS Signature Version 4, as S3 checks it on every request (docs/bucket-sync.md,
/// "Credentials"): a canonical form of the request, hashed into a string to sign, signed with a
/// key derived from the secret, the day, the region and the service. The secret itself never
/// leaves this value: only the signature goes on the wire.
struct SigV4: Sendable {
    /// The keys that sign.
    let credentials: BucketCredentials
    /// The region the bucket lives in (`us-east-1` for most stores that are not AWS).
    let region: String
    /// `s3` for S3; other services sign alike.
    var service = "s3"

    /// One request to sign: the method, the path already URI-encoded (`uriEncode(_:keepSlash:)`),
    /// the query parameters not encoded, the headers to sign, and the payload's SHA-256 in hex.
    struct Request {
        var method: String
        var path: String
        var query: [(name: String, value: String)] = []
        var headers: [(name: String, value: String)]
        var payloadHash: String
    }

    /// `yyyyMMdd'T'HHmmss'Z'` in UTC, by the proleptic Gregorian calendar, in integer
    /// arithmetic (the days-to-civil conversion of Howard Hinnant's `chrono` date algorithms):
    /// a `DateFormatter` made for each request cost a bucket sync 7 % of its CPU.
    static func timestamp(_ date: Date) -> String {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let ofDay = seconds - days * 86_400
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func digits(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return digits(year, 4) + digits(month, 2) + digits(day, 2) + "T" + digits(ofDay / 3_600, 2)
            + digits(ofDay / 60 % 60, 2) + digits(ofDay % 60, 2) + "Z"
    }

    /// The SHA-256 of `bytes` in lowercase hex: a payload's hash.
    static func hexHash(_ bytes: [UInt8]) -> String { Hex.encode(SHA256.hash(bytes)) }

    /// RFC 3986 encoding as SigV4 wants it: every byte but `A–Z a–z 0–9 - . _ ~` as `%XX`
    /// (uppercase), and `/` kept in a path.
    static func uriEncode(_ text: String, keepSlash: Bool = false) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: "/") where keepSlash:
                out.append("/")
            default:
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }

    /// The query string, parameters encoded and sorted by name then value.
    static func canonicalQuery(_ query: [(name: String, value: String)]) -> String {
        let encoded: [(name: String, value: String)] = query.map { (uriEncode($0.name), uriEncode($0.value)) }
        let sorted = encoded.sorted { left, right in left.name == right.name ? left.value < right.value : left.name < right.name }
        return sorted.map { $0.name + "=" + $0.value }.joined(separator: "&")
    }

    /// Header names lowercased, sorted, values trimmed with inner runs of spaces made one.
    private static func canonicalHeaders(_ headers: [(name: String, value: String)]) -> [(name: String, value: String)] {
        headers.map { header in
            let value = header.value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
            return (header.name.lowercased(), value)
        }.sorted { $0.name < $1.name }
    }

    /// `host;range;x-amz-date`: the names of the signed headers.
    static func signedHeaders(_ request: Request) -> String {
        canonicalHeaders(request.headers).map(\.name).joined(separator: ";")
    }

    /// The canonical request: method, path, query, headers, signed header names, payload hash.
    static func canonicalRequest(_ request: Request) -> String {
        let headers = canonicalHeaders(request.headers).map { $0.name + ":" + $0.value + "\n" }.joined()
        return [request.method, request.path, canonicalQuery(request.query), headers, signedHeaders(request), request.payloadHash]
            .joined(separator: "\n")
    }

    /// `DAY/REGION/SERVICE/aws4_request`.
    func scope(day: String) -> String { "\(day)/\(region)/\(service)/aws4_request" }

    /// The string to sign for `request` at `timestamp` (`timestamp(_:)`).
    func stringToSign(_ request: Request, timestamp: String) -> String {
        let canonical = Self.hexHash(Array(Self.canonicalRequest(request).utf8))
        return ["AWS4-HMAC-SHA256", timestamp, scope(day: String(timestamp.prefix(8))), canonical].joined(separator: "\n")
    }

    /// The key of one day, region and service, derived from the secret.
    func signingKey(day: String) -> [UInt8] {
        var key = SHA256.hmac(Array(day.utf8), key: Array(("AWS4" + credentials.secretAccessKey).utf8))
        for part in [region, service, "aws4_request"] { key = SHA256.hmac(Array(part.utf8), key: key) }
        return key
    }

    /// The signature of `request` at `timestamp`, in hex.
    func signature(_ request: Request, timestamp: String) -> String {
        Hex.encode(SHA256.hmac(Array(stringToSign(request, timestamp: timestamp).utf8), key: signingKey(day: String(timestamp.prefix(8)))))
    }

    /// The `Authorization` header's value for `request` at `timestamp`; `request.headers` must
    /// hold every header that is signed (`host`, `x-amz-date`, `x-amz-content-sha256`, and
    /// `x-amz-security-token` with a session token).
    func authorization(_ request: Request, timestamp: String) -> String {
        "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope(day: String(timestamp.prefix(8)))), "
            + "SignedHeaders=\(Self.signedHeaders(request)), Signature=\(signature(request, timestamp: timestamp))"
    }
}

extension String {
    /// The string with leading zeros to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
