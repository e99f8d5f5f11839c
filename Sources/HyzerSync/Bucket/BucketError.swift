/// What a bucket refused, or why it could not be reached: each one sentence saying what to do
/// (docs/bucket-sync.md, "A hostile or failing bucket").
public enum BucketError: Error, Equatable, Sendable, CustomStringConvertible {
    /// 403: the credentials are wrong, or may not use this bucket.
    case accessDenied(bucket: String)
    /// `RequestTimeTooSkewed`: this device's clock is too far from the store's.
    case clockSkewed
    /// 404 on a bucket: it does not exist.
    case noSuchBucket(bucket: String)
    /// An object larger than the caller's bound: refused before its body was read.
    case tooLarge(key: String, limit: Int)
    /// 412 on a read with `If-Match`: the object was replaced after it was listed.
    case changed(key: String)
    /// 404 on a read: the object is not there.
    case notFound(key: String)
    /// Any other answer the store gave after every retry: its status, S3 error code and message.
    case failed(status: Int, code: String, message: String)
    /// The store could not be reached, or kept failing (timeouts, 503 SlowDown) after every retry.
    case unreachable(reason: String)
    /// A listing that is not S3's XML, or pages that never end.
    case malformedListing(reason: String)
    /// A blocking call made on an event loop's thread, where waiting would deadlock.
    case calledOnEventLoop

    /// The sentence.
    public var description: String {
        switch self {
        case .accessDenied(let bucket):
            "the bucket \(bucket) refused these credentials (403): check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY "
                + "(or the profile) and that they may list, read, write and delete in the bucket"
        case .clockSkewed:
            "the bucket says this device's clock is wrong (RequestTimeTooSkewed): set the clock right, within 15 minutes, and sync again"
        case .noSuchBucket(let bucket):
            "the bucket \(bucket) does not exist on this store: create it, or check its name, the endpoint and the region"
        case .tooLarge(let key, let limit):
            "\(key) is larger than the limit of \(limit) bytes for this kind of object; it is not read"
        case .changed(let key):
            "\(key) was replaced after it was listed; it is read again, under its new identity, at the next sync"
        case .notFound(let key):
            "\(key) is not in the bucket"
        case .failed(let status, let code, let message):
            "the bucket answered \(status)\(code.isEmpty ? "" : " " + code)\(message.isEmpty ? "" : ": " + message); try again later"
        case .unreachable(let reason):
            "the bucket could not be reached (\(reason)): check the network and the endpoint, and sync again"
        case .malformedListing(let reason):
            "the bucket's listing could not be read (\(reason)); nothing was synced"
        case .calledOnEventLoop:
            "a bucket folder was used on an event loop's thread, where waiting for the bucket would deadlock; use it from another thread"
        }
    }
}
