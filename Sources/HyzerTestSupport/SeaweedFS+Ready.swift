import Foundation
import HyzerSync

extension SeaweedFS {
    /// A store started, whose bucket answers signed requests (it is created a moment after the
    /// store says it is ready) and takes a write (the first one waits for the store to make its
    /// volumes, which on a loaded machine can outlast a client's deadline).
    public static func ready() throws -> SeaweedFS {
        let store = try SeaweedFS()
        let probe = try store.folder("probe")
        let deadline = Date().addingTimeInterval(60)
        while true {
            do {
                _ = try probe.list("")
                try probe.client.replace(key: "probe/ready", bytes: [1], contentType: "application/octet-stream", cacheControl: "no-store")
                    .wait()
                return store
            } catch  where Date() < deadline {
                Thread.sleep(forTimeInterval: 0.25)
            }
        }
    }

    /// A client of `s3://hyzer-tests/PREFIX` on this store (or on `endpoint`, a proxy in front
    /// of it), signing with the store's identity (or with `secret`), giving up a try after `timeout`.
    public func client(
        _ prefix: String, endpoint: String? = nil, secret: String = SeaweedFS.secretKey, timeout: Duration = .seconds(30)
    ) throws -> BucketClient {
        let location = try BucketLocation(url: "s3://\(Self.bucket)/\(prefix)", endpoint: endpoint ?? self.endpoint, region: "us-east-1")
        return BucketClient(
            location: location, credentials: BucketCredentials(accessKeyID: Self.accessKey, secretAccessKey: secret), timeout: timeout)
    }

    /// A folder of the group's protocol under `prefix`, with a client of its own (so its requests are its own).
    public func folder(
        _ prefix: String, endpoint: String? = nil, secret: String = SeaweedFS.secretKey, timeout: Duration = .seconds(30)
    ) throws -> BucketFolder {
        BucketFolder(client: try client(prefix, endpoint: endpoint, secret: secret, timeout: timeout))
    }
}
