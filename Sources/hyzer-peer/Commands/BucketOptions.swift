import ArgumentParser
import Foundation
import HyzerSync

/// `--bucket s3://BUCKET/PREFIX` and where it lives (docs/bucket-sync.md). The credentials are
/// never options: they come from the environment or the shared credentials file, as the AWS
/// tools find them.
struct BucketOptions: ParsableArguments {
    @Option(help: "Sync through this S3-compatible bucket prefix, as s3://BUCKET/PREFIX (credentials from AWS_* or ~/.aws/credentials).")
    var bucket: String?
    @Option(help: "The store's endpoint for a bucket not on AWS, as https://HOST[:PORT] (http:// only when said).")
    var endpoint: String?
    @Option(help: "The bucket's region (default: AWS_REGION, else us-east-1).") var region: String?
    @Option(help: "The profile of the shared credentials file to sign with.") var profile: String?

    /// Refuses `--endpoint`, `--region` and `--profile` without a bucket to use them on: `--bucket`,
    /// or serve's `--publish` (`publish`: whether it was given; `nil` for a command without it).
    /// Not `validate()`, which ArgumentParser would call without knowing of `--publish`.
    func check(publish: Bool? = nil) throws {
        if bucket == nil, publish != true, endpoint != nil || region != nil || profile != nil {
            throw ValidationError(
                "--endpoint, --region and --profile go with --bucket " + (publish == nil ? "" : "or --publish ") + "s3://BUCKET/PREFIX")
        }
    }

    /// The bucket folder, or `nil` without `--bucket`. Throws `BucketLocation.Invalid` or
    /// `BucketCredentials.NotFound`, each one sentence saying what to give.
    func folder() throws -> BucketFolder? {
        try bucket.map { BucketFolder(client: try client($0)) }
    }

    /// A client of the bucket prefix `url` (`s3://BUCKET/PREFIX`), on this endpoint and region,
    /// signing with the credentials found as the AWS tools find them.
    func client(_ url: String) throws -> BucketClient {
        let location = try BucketLocation(url: url, endpoint: endpoint, region: region ?? BucketCredentials.region())
        return BucketClient(location: location, credentials: try BucketCredentials.resolve(profile: profile))
    }
}
