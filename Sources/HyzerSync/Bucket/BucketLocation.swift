import Foundation

/// Where a group's objects live: `s3://BUCKET/PREFIX` on a store (docs/bucket-sync.md,
/// "Layout"). AWS by default, over HTTPS with virtual-hosted addressing
/// (`BUCKET.s3.REGION.amazonaws.com`); another store by its endpoint, path-style
/// (`ENDPOINT/BUCKET/KEY`) unless asked otherwise. Plain HTTP only for an endpoint that says
/// `http://`.
public struct BucketLocation: Sendable, Equatable, CustomStringConvertible {
    /// How a request names the bucket.
    public enum Addressing: Sendable, Equatable {
        /// `https://ENDPOINT/BUCKET/KEY`: what MinIO, SeaweedFS, Garage and most self-hosted stores expect.
        case pathStyle
        /// `https://BUCKET.ENDPOINT/KEY`: AWS's default, and R2's.
        case virtualHosted
    }

    /// The bucket's name.
    public let bucket: String
    /// The key prefix the group's objects live under, without a leading or trailing `/` (may be empty).
    public let prefix: String
    /// `https` or `http`.
    public let scheme: String
    /// The store's host, without the bucket.
    public let host: String
    /// The port, when not the scheme's default.
    public let port: Int?
    /// How requests name the bucket.
    public let addressing: Addressing
    /// The region requests are signed for.
    public let region: String

    /// Why a bucket URL or an endpoint was refused: one sentence saying what to give.
    public struct Invalid: Error, Equatable, Sendable, CustomStringConvertible {
        /// The sentence.
        public let description: String
    }

    /// The location of `url` (`s3://BUCKET/PREFIX`) on `endpoint` (AWS's when `nil`) in `region`.
    /// Throws `Invalid` for a URL that is not `s3://`, a bucket name S3 refuses, or an endpoint
    /// that is not `https://HOST[:PORT]` or `http://HOST[:PORT]`.
    public init(url: String, endpoint: String? = nil, region: String, addressing: Addressing? = nil) throws {
        guard url.hasPrefix("s3://") else { throw Invalid(description: "\(url) is not a bucket: give it as s3://BUCKET/PREFIX") }
        let rest = url.dropFirst(5)
        let bucket = String(rest.prefix { $0 != "/" })
        guard (3...63).contains(bucket.count),
            bucket.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-" || $0 == ".") }),
            bucket.first?.isLetter == true || bucket.first?.isNumber == true
        else {
            throw Invalid(description: "\(bucket) is not a bucket name: 3 to 63 lowercase letters, digits, dots and hyphens")
        }
        let prefix = rest.dropFirst(bucket.count).split(separator: "/").joined(separator: "/")
        guard !prefix.split(separator: "/").contains(where: { $0 == "." || $0 == ".." }) else {
            throw Invalid(description: "\(url): the prefix may not contain . or .. components")
        }
        self.bucket = bucket
        self.prefix = prefix
        self.region = region
        if let endpoint {
            guard let parsed = URLComponents(string: endpoint), let scheme = parsed.scheme?.lowercased(),
                scheme == "https" || scheme == "http",
                let host = parsed.host, !host.isEmpty, parsed.path.isEmpty || parsed.path == "/", parsed.query == nil, parsed.user == nil
            else {
                throw Invalid(description: "\(endpoint) is not an endpoint: give it as https://HOST[:PORT] (http:// only on purpose)")
            }
            self.scheme = scheme
            self.host = host
            self.port = parsed.port
            self.addressing = addressing ?? .pathStyle
        } else {
            scheme = "https"
            host = "s3.\(region).amazonaws.com"
            port = nil
            self.addressing = addressing ?? .virtualHosted
        }
    }

    /// `s3://BUCKET/PREFIX`.
    public var description: String { "s3://\(bucket)" + (prefix.isEmpty ? "" : "/" + prefix) }

    /// The `Host` header: the bucket's host, with the port when it is not the default.
    var hostHeader: String {
        let name = addressing == .virtualHosted ? bucket + "." + host : host
        return port.map { name + ":\($0)" } ?? name
    }

    /// The request path of `key`, URI-encoded: `/BUCKET/KEY` path-style, `/KEY` virtual-hosted.
    func path(key: String) -> String {
        let encoded = SigV4.uriEncode(key, keepSlash: true)
        return addressing == .pathStyle ? "/" + bucket + (key.isEmpty ? "" : "/" + encoded) : "/" + encoded
    }

    /// The object key of a folder path: `PREFIX/PATH`.
    func key(_ path: String) -> String { prefix.isEmpty ? path : prefix + "/" + path }

    /// The URL of `path` (already encoded) with `query` (already canonical).
    func url(path: String, query: String) -> String {
        let bracketed = host.contains(":") ? "[\(host)]" : host
        let name = addressing == .virtualHosted ? bucket + "." + bracketed : bracketed
        return "\(scheme)://\(name)\(port.map { ":\($0)" } ?? "")\(path)\(query.isEmpty ? "" : "?" + query)"
    }
}
