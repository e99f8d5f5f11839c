import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// An S3 client of one bucket (docs/bucket-sync.md): `ListObjectsV2`, `GET`, `PUT` written once
/// (`If-None-Match: *`) and `DELETE`, each signed with SigV4 and sent through async-http-client.
///
/// Every answer is hostile: a body is refused by its `Content-Length` before it is read, and read
/// no further than its bound; listings are parsed as XML (XMLCoder), never searched as strings.
/// 5xx answers (503 SlowDown), `RequestTimeout` and timeouts are retried with an exponential,
/// jittered back-off, at most `attempts` times. Operations return futures: `get()` them from async
/// code, or `wait()` on a thread that is no event loop's (`BucketFolder` does).
public final class BucketClient: Sendable {
    /// Where the objects live.
    public let location: BucketLocation
    private let signer: SigV4
    private let http: HTTPClient
    private let counted = Mutex(BucketTraffic())
    /// How long one try of a request may take (and a tenth of a second more per 10 KB it carries)
    /// before it is given up and tried again.
    let timeout: TimeAmount
    /// Tries of a request before its failure is final.
    static let attempts = 4
    /// The largest listing page read (S3 pages hold 1,000 keys, about 350 KiB).
    public static let listingPageBytesMax = 4 << 20
    /// The most pages one listing reads: 1,000,000 keys.
    static let listingPagesMax = 1_000

    /// A client of `location`, signing with `credentials`; each try of a request is given up
    /// after `timeout` (and more for a large body) and tried again.
    public init(location: BucketLocation, credentials: BucketCredentials, timeout: Duration = .seconds(30)) {
        self.location = location
        self.timeout = TimeAmount(timeout)
        self.signer = SigV4(credentials: credentials, region: location.region)
        self.http = Self.http
    }

    /// One HTTP client for every bucket of the process, never shut down (as async-http-client's
    /// own `shared`): no redirects followed, no decompression (a body's bound is its bytes on the
    /// wire), 10 s to connect, 30 s between bytes, and a failed connection fails its request at
    /// once, so that this client's own back-off decides the retries (a store that is down costs
    /// four tries of a few seconds, not four deadlines).
    private static let http: HTTPClient = {
        var configuration = HTTPClient.Configuration(
            certificateVerification: .fullVerification, redirectConfiguration: .disallow,
            timeout: .init(connect: .seconds(10), read: .seconds(30)), decompression: .disabled)
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    /// Requests sent so far, retries included: what the store bills.
    public var requestsSent: Int { traffic.requests }

    /// Requests and bytes so far, by kind, retries included: what the store bills.
    public var traffic: BucketTraffic { counted.withLock { $0 } }

    /// An answer: status, headers, body.
    struct Response {
        let status: Int
        let headers: HTTPHeaders
        let body: [UInt8]
    }

    // MARK: Operations

    /// Every object whose key starts with `prefix`, through as many pages as it takes; with a
    /// `delimiter`, the keys grouped up to it come back as `prefixes`.
    public func list(prefix: String, delimiter: String? = nil) -> EventLoopFuture<BucketListing> {
        listPages(prefix: prefix, delimiter: delimiter, token: nil, into: BucketListing(), pages: 0)
    }

    private func listPages(prefix: String, delimiter: String?, token: String?, into listing: BucketListing, pages: Int)
        -> EventLoopFuture<BucketListing>
    {
        var query = [(name: "list-type", value: "2"), (name: "prefix", value: prefix)]
        if let delimiter { query.append((name: "delimiter", value: delimiter)) }
        if let token { query.append((name: "continuation-token", value: token)) }
        return send("GET", key: "", query: query, maximumBytes: Self.listingPageBytesMax).flatMapThrowing { response in
            guard response.status == 200 else { throw self.failure(response, key: "") }
            return try BucketListingPage(decoding: response.body)
        }.flatMap { page in
            var listing = listing
            listing.objects += page.listing.objects
            listing.prefixes += page.listing.prefixes
            guard page.isTruncated else { return self.http.eventLoopGroup.any().makeSucceededFuture(listing) }
            guard let next = page.nextContinuationToken, !next.isEmpty, next != token, pages + 1 < Self.listingPagesMax else {
                return self.http.eventLoopGroup.any().makeFailedFuture(
                    BucketError.malformedListing(reason: "a truncated page with no new continuation token, or too many pages"))
            }
            return self.listPages(prefix: prefix, delimiter: delimiter, token: next, into: listing, pages: pages + 1)
        }
    }

    /// The bytes of `key`, refused (`BucketError.tooLarge`) before its body is read when it is
    /// larger than `maximumBytes`; with `ifMatch`, `BucketError.changed` when its ETag is no longer that.
    public func get(key: String, maximumBytes: Int, ifMatch eTag: String? = nil) -> EventLoopFuture<[UInt8]> {
        var headers: [(name: String, value: String)] = []
        if let eTag { headers.append((name: "if-match", value: "\"\(eTag)\"")) }
        return send("GET", key: key, headers: headers, maximumBytes: maximumBytes).flatMapThrowing { response in
            switch response.status {
            case 200: return response.body
            case 404 where BucketErrorBody.decode(response.body).code != "NoSuchBucket": throw BucketError.notFound(key: key)
            case 412: throw BucketError.changed(key: key)
            default: throw self.failure(response, key: key)
            }
        }
    }

    /// Writes `bytes` at `key` once (`If-None-Match: *`): `true` when written, `false` when an
    /// object was there already (412), which is left as it is.
    public func put(key: String, bytes: [UInt8]) -> EventLoopFuture<Bool> {
        send("PUT", key: key, headers: [(name: "if-none-match", value: "*")], body: bytes, maximumBytes: 1 << 16).flatMapThrowing {
            response in
            switch response.status {
            case 200, 201, 204: return true
            case 412, 409: return false  // 409 ConditionalRequestConflict: another write of the same key won
            default: throw self.failure(response, key: key)
            }
        }
    }

    /// Writes `bytes` at `key` whatever is there (a plain PUT, no condition), with the headers a
    /// static host serves it with: only for published pages (docs/bucket-sync.md, "Publishing
    /// the leaderboard"), which are rewritten as the standings change; a group's objects are
    /// written once (`put(key:bytes:)`).
    public func replace(key: String, bytes: [UInt8], contentType: String, cacheControl: String) -> EventLoopFuture<Void> {
        let headers = [(name: "content-type", value: contentType), (name: "cache-control", value: cacheControl)]
        return send("PUT", key: key, headers: headers, body: bytes, maximumBytes: 1 << 16).flatMapThrowing { response in
            guard [200, 201, 204].contains(response.status) else { throw self.failure(response, key: key) }
        }
    }

    /// Deletes `key`; nothing when it is not there.
    public func delete(key: String) -> EventLoopFuture<Void> {
        send("DELETE", key: key, maximumBytes: 1 << 16).flatMapThrowing { response in
            guard [200, 204, 404].contains(response.status) else { throw self.failure(response, key: key) }
        }
    }

    // MARK: Sending

    /// The error an unexpected answer means.
    private func failure(_ response: Response, key: String) -> BucketError {
        let (code, message) = BucketErrorBody.decode(response.body)
        switch (response.status, code) {
        case (_, "RequestTimeTooSkewed"): return .clockSkewed
        case (403, _): return .accessDenied(bucket: location.bucket)
        case (404, "NoSuchBucket"): return .noSuchBucket(bucket: location.bucket)
        default: return .failed(status: response.status, code: code, message: message)
        }
    }

    /// Sends one request, signed anew for each attempt, retrying what a store says to retry.
    private func send(
        _ method: String, key: String, query: [(name: String, value: String)] = [], headers: [(name: String, value: String)] = [],
        body: [UInt8] = [], maximumBytes: Int, attempt: Int = 1
    ) -> EventLoopFuture<Response> {
        let eventLoop = http.eventLoopGroup.any()
        let request: HTTPClient.Request
        do {
            request = try signed(method, key: key, query: query, headers: headers, body: body)
        } catch {
            return eventLoop.makeFailedFuture(error)
        }
        let sentBytes = BucketTraffic.bytes(
            method: method, target: location.path(key: key), query: SigV4.canonicalQuery(query), headers: request.headers,
            body: method == "PUT" ? body.count : nil)
        counted.withLock { $0.count(method, query: query, bytes: sentBytes) }
        let timeout = timeout + .milliseconds(Int64(max(body.count, maximumBytes) / 100_000))
        let accumulator = ResponseAccumulator(request: request, maxBodySize: maximumBytes)
        return http.execute(request: request, delegate: accumulator, deadline: .now() + timeout).futureResult
            .map { response -> Result<Response, any Error> in
                let body = Array(buffer: response.body ?? ByteBuffer())
                let received = BucketTraffic.bytes(status: response.status, headers: response.headers, body: body.count)
                self.counted.withLock { $0.bytesReceived += received }
                return .success(Response(status: Int(response.status.code), headers: response.headers, body: body))
            }
            .recover { .failure($0) }
            .flatMap { result in
                let retry: Bool
                switch result {
                case .success(let response):
                    let code = response.status >= 500 || response.status == 400 ? BucketErrorBody.decode(response.body).code : ""
                    retry = response.status >= 500 || code == "RequestTimeout" || code == "SlowDown"
                case .failure(is ResponseAccumulator.ResponseTooBigError):
                    return eventLoop.makeFailedFuture(BucketError.tooLarge(key: key, limit: maximumBytes))
                case .failure:
                    retry = true
                }
                guard retry, attempt < Self.attempts else {
                    switch result {
                    case .success(let response) where response.status >= 500 && attempt >= Self.attempts:
                        let (code, message) = BucketErrorBody.decode(response.body)
                        return eventLoop.makeFailedFuture(BucketError.failed(status: response.status, code: code, message: message))
                    case .success(let response): return eventLoop.makeSucceededFuture(response)
                    case .failure(let error):
                        return eventLoop.makeFailedFuture(BucketError.unreachable(reason: Self.reason(error)))
                    }
                }
                // 200 ms, 400 ms, 800 ms, each with up to as much again at random: stores ask for
                // jittered exponential back-off, so many devices do not retry in step.
                let base = Int64(200) << Int64(attempt - 1)
                let delay = TimeAmount.milliseconds(base + Int64.random(in: 0...base))
                return eventLoop.flatScheduleTask(in: delay) {
                    self.send(
                        method, key: key, query: query, headers: headers, body: body, maximumBytes: maximumBytes, attempt: attempt + 1)
                }.futureResult
            }
    }

    /// The request for `key` (the full key; empty for the bucket itself), signed now.
    private func signed(
        _ method: String, key: String, query: [(name: String, value: String)], headers: [(name: String, value: String)], body: [UInt8]
    ) throws -> HTTPClient.Request {
        let path = location.path(key: key)
        let timestamp = SigV4.timestamp(Date())
        let payloadHash = SigV4.hexHash(body)
        var signedHeaders =
            headers + [
                (name: "host", value: location.hostHeader), (name: "x-amz-date", value: timestamp),
                (name: "x-amz-content-sha256", value: payloadHash),
            ]
        if let token = signer.credentials.sessionToken { signedHeaders.append((name: "x-amz-security-token", value: token)) }
        let toSign = SigV4.Request(method: method, path: path, query: query, headers: signedHeaders, payloadHash: payloadHash)
        var httpHeaders = HTTPHeaders(signedHeaders.map { ($0.name, $0.value) })
        httpHeaders.add(name: "authorization", value: signer.authorization(toSign, timestamp: timestamp))
        return try HTTPClient.Request(
            url: location.url(path: path, query: SigV4.canonicalQuery(query)), method: HTTPMethod(rawValue: method), headers: httpHeaders,
            body: method == "PUT" ? .bytes(body) : nil)
    }

    /// A transport error in a few words, never the request (which carries the signature).
    private static func reason(_ error: any Error) -> String {
        if let error = error as? HTTPClientError { return error.description }
        return String(describing: type(of: error))
    }
}

/// What a client sent and received, retries included: the requests a store bills, by the class
/// its price list puts them in, and the bytes of the HTTP messages (request and status lines,
/// headers and bodies; TLS and TCP not counted). Answers lost to a transport failure count no bytes.
public struct BucketTraffic: Sendable, Equatable {
    /// `ListObjectsV2` requests (billed with PUTs on S3 and R2).
    public var lists = 0
    /// Object `GET`s.
    public var gets = 0
    /// `PUT`s.
    public var puts = 0
    /// `DELETE`s (free on S3 and R2).
    public var deletes = 0
    /// Bytes of the requests.
    public var bytesSent = 0
    /// Bytes of the answers.
    public var bytesReceived = 0

    /// A count of nothing.
    public init() {}

    /// Every request.
    public var requests: Int { lists + gets + puts + deletes }

    mutating func count(_ method: String, query: [(name: String, value: String)], bytes: Int) {
        switch method {
        case "GET" where query.contains { $0.name == "list-type" }: lists += 1
        case "GET": gets += 1
        case "PUT": puts += 1
        default: deletes += 1
        }
        bytesSent += bytes
    }

    /// A request's bytes as HTTP/1.1 frames it: `METHOD TARGET?QUERY HTTP/1.1`, the headers (and
    /// the `content-length` the HTTP client adds for a body), the blank line, the body.
    static func bytes(method: String, target: String, query: String, headers: HTTPHeaders, body: Int?) -> Int {
        let line = method.utf8.count + 1 + target.utf8.count + (query.isEmpty ? 0 : 1 + query.utf8.count) + 11
        let length = body.map { "content-length: \($0)\r\n".utf8.count + $0 } ?? 0
        return line + bytes(headers) + length + 2
    }

    /// An answer's bytes as HTTP/1.1 frames it: `HTTP/1.1 200 OK`, the headers, the blank line, the body.
    static func bytes(status: HTTPResponseStatus, headers: HTTPHeaders, body: Int) -> Int {
        13 + status.reasonPhrase.utf8.count + 2 + bytes(headers) + 2 + body
    }

    private static func bytes(_ headers: HTTPHeaders) -> Int {
        headers.reduce(0) { $0 + $1.name.utf8.count + 2 + $1.value.utf8.count + 2 }
    }
}
