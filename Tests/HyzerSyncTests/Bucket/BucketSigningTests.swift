import Foundation
import HyzerCrypto
import HyzerDomain
import Testing

@testable import HyzerSync

/// docs/bucket-sync.md, "Credentials": requests are signed with AWS Signature Version 4, checked
/// here against the examples AWS publishes in its SigV4 and S3 documentation (the values below are
/// copied by hand from those pages: AWS's example keys, requests and signatures).
@Suite struct BucketSigningTests {
    /// AWS's example keys for S3 (Amazon S3 API Reference, "Signature Calculations for the
    /// Authorization Header").
    static let s3 = SigV4(
        credentials: BucketCredentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
        region: "us-east-1")
    static let emptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    static let s3Timestamp = "20130524T000000Z"

    @Test func sha256AndHMACMatchTheirStandards() {
        #expect(SigV4.hexHash([]) == Self.emptyHash)
        #expect(SigV4.hexHash(Array("Welcome to Amazon S3.".utf8)) == "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072")
        // RFC 4231, test case 2: a key shorter than the block.
        #expect(
            Hex.encode(SHA256.hmac(Array("what do ya want for nothing?".utf8), key: Array("Jefe".utf8)))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    /// The general SigV4 example (IAM ListUsers, 2015-08-30): canonical request, string to sign,
    /// signing key and signature, each step as AWS lists it.
    /// The request time is the calendar's, second for second: AWS's example instant, the edges
    /// of leap years and centuries, and a spread of instants, each against Foundation's own
    /// Gregorian calendar in UTC.
    @Test func timestampsAreTheGregorianCalendarsInUTC() {
        #expect(SigV4.timestamp(Date(timeIntervalSince1970: 1_440_938_160)) == "20150830T123600Z")
        #expect(SigV4.timestamp(Date(timeIntervalSince1970: 0)) == "19700101T000000Z")
        #expect(SigV4.timestamp(Date(timeIntervalSince1970: 951_782_399.9)) == "20000228T235959Z")
        #expect(SigV4.timestamp(Date(timeIntervalSince1970: 951_868_800)) == "20000301T000000Z")
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let date = Date(timeIntervalSince1970: Double(Int64.random(in: -2_208_988_800...7_258_118_400, using: &generator)))
            let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
            let expected = String(
                format: "%04d%02d%02dT%02d%02d%02dZ", parts.year!, parts.month!, parts.day!, parts.hour!, parts.minute!, parts.second!)
            #expect(SigV4.timestamp(date) == expected, "\(date.timeIntervalSince1970)")
        }
    }

    @Test func theGeneralExampleSignsAsAWSSays() {
        let signer = SigV4(
            credentials: BucketCredentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"),
            region: "us-east-1", service: "iam")
        let request = SigV4.Request(
            method: "GET", path: "/", query: [(name: "Version", value: "2010-05-08"), (name: "Action", value: "ListUsers")],
            headers: [
                (name: "Content-Type", value: "application/x-www-form-urlencoded; charset=utf-8"),
                (name: "Host", value: "iam.amazonaws.com"),
                (name: "X-Amz-Date", value: "20150830T123600Z"),
            ],
            payloadHash: Self.emptyHash)
        #expect(
            SigV4.canonicalRequest(request) == """
                GET
                /
                Action=ListUsers&Version=2010-05-08
                content-type:application/x-www-form-urlencoded; charset=utf-8
                host:iam.amazonaws.com
                x-amz-date:20150830T123600Z

                content-type;host;x-amz-date
                e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                """)
        #expect(
            signer.stringToSign(request, timestamp: "20150830T123600Z") == """
                AWS4-HMAC-SHA256
                20150830T123600Z
                20150830/us-east-1/iam/aws4_request
                f536975d06c0309214f805bb90ccff089219ecd68b2577efef23edd43b7e1a59
                """)
        #expect(Hex.encode(signer.signingKey(day: "20150830")) == "c4afb1cc5771d871763a393e44b703571b55cc28424d1a5e86da6ed3c154a4b9")
        #expect(
            signer.signature(request, timestamp: "20150830T123600Z") == "5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7")
    }

    /// S3's example GET Object with a range.
    @Test func theS3GetObjectExample() {
        let request = SigV4.Request(
            method: "GET", path: "/test.txt",
            headers: [
                (name: "Host", value: "examplebucket.s3.amazonaws.com"), (name: "Range", value: "bytes=0-9"),
                (name: "x-amz-content-sha256", value: Self.emptyHash), (name: "x-amz-date", value: Self.s3Timestamp),
            ],
            payloadHash: Self.emptyHash)
        #expect(
            Self.s3.stringToSign(request, timestamp: Self.s3Timestamp).hasSuffix(
                "\n20130524/us-east-1/s3/aws4_request\n7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972"))
        #expect(
            Self.s3.authorization(request, timestamp: Self.s3Timestamp)
                == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
                + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
                + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
    }

    /// S3's example PUT Object: a key with a character that is encoded, and its payload's hash.
    @Test func theS3PutObjectExample() {
        let payloadHash = SigV4.hexHash(Array("Welcome to Amazon S3.".utf8))
        let request = SigV4.Request(
            method: "PUT", path: SigV4.uriEncode("/test$file.text", keepSlash: true),
            headers: [
                (name: "Date", value: "Fri, 24 May 2013 00:00:00 GMT"), (name: "Host", value: "examplebucket.s3.amazonaws.com"),
                (name: "x-amz-date", value: Self.s3Timestamp), (name: "x-amz-storage-class", value: "REDUCED_REDUNDANCY"),
                (name: "x-amz-content-sha256", value: payloadHash),
            ],
            payloadHash: payloadHash)
        #expect(request.path == "/test%24file.text")
        #expect(
            Self.s3.signature(request, timestamp: Self.s3Timestamp) == "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd")
    }

    /// S3's example GET Bucket lifecycle (a query parameter with no value) and List Objects (two, sorted).
    @Test func theS3BucketExamples() {
        func request(_ query: [(name: String, value: String)]) -> SigV4.Request {
            SigV4.Request(
                method: "GET", path: "/", query: query,
                headers: [
                    (name: "Host", value: "examplebucket.s3.amazonaws.com"), (name: "x-amz-content-sha256", value: Self.emptyHash),
                    (name: "x-amz-date", value: Self.s3Timestamp),
                ],
                payloadHash: Self.emptyHash)
        }
        #expect(
            Self.s3.signature(request([(name: "lifecycle", value: "")]), timestamp: Self.s3Timestamp)
                == "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543")
        #expect(
            Self.s3.signature(request([(name: "prefix", value: "J"), (name: "max-keys", value: "2")]), timestamp: Self.s3Timestamp)
                == "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7")
    }

    @Test func credentialsComeFromTheEnvironmentOrAProfileAndAreNeverShown() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hyzer-credentials-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("credentials")
        try Data(
            """
            [default]
            aws_access_key_id = AKIDDEFAULT
            aws_secret_access_key = default-secret
            # a comment
            [league]
            aws_access_key_id=AKIDLEAGUE
            aws_secret_access_key=league-secret
            aws_session_token=league-token
            """.utf8
        ).write(to: file)
        let environment = ["AWS_SHARED_CREDENTIALS_FILE": file.path, "HOME": directory.path]
        let fromEnvironment = try BucketCredentials.resolve(
            profile: nil, environment: environment.merging(["AWS_ACCESS_KEY_ID": "AKIDENV", "AWS_SECRET_ACCESS_KEY": "env-secret"]) { $1 })
        #expect(fromEnvironment.accessKeyID == "AKIDENV" && fromEnvironment.secretAccessKey == "env-secret")
        #expect(try BucketCredentials.resolve(profile: nil, environment: environment).accessKeyID == "AKIDDEFAULT")
        let league = try BucketCredentials.resolve(
            profile: "league", environment: environment.merging(["AWS_ACCESS_KEY_ID": "AKIDENV"]) { $1 })
        #expect(league.accessKeyID == "AKIDLEAGUE" && league.sessionToken == "league-token", "a named profile wins over the environment")
        #expect(!"\(league)".contains("league-secret") && !String(reflecting: league).contains("league-secret"))
        #expect(throws: BucketCredentials.NotFound.self) { try BucketCredentials.resolve(profile: "nobody", environment: environment) }
        #expect(BucketCredentials.region(environment: ["AWS_REGION": "eu-west-1"]) == "eu-west-1")
        #expect(BucketCredentials.region(environment: [:]) == "us-east-1")
    }

    @Test func bucketLocationsAddressPathStyleOrVirtualHostedAndHTTPSByDefault() throws {
        let aws = try BucketLocation(url: "s3://league-scores/season/2026/", region: "eu-west-1")
        #expect(aws.prefix == "season/2026" && aws.scheme == "https" && aws.addressing == .virtualHosted)
        #expect(
            aws.url(path: aws.path(key: "season/2026/a b"), query: "")
                == "https://league-scores.s3.eu-west-1.amazonaws.com/season/2026/a%20b")
        let local = try BucketLocation(url: "s3://scores", endpoint: "http://127.0.0.1:8333", region: "us-east-1")
        #expect(local.scheme == "http" && local.addressing == .pathStyle && local.hostHeader == "127.0.0.1:8333")
        #expect(local.url(path: local.path(key: "k"), query: "list-type=2") == "http://127.0.0.1:8333/scores/k?list-type=2")
        #expect(try BucketLocation(url: "s3://scores", endpoint: "https://r2.example", region: "auto").scheme == "https")
        #expect(throws: BucketLocation.Invalid.self) { try BucketLocation(url: "https://scores", region: "us-east-1") }
        #expect(throws: BucketLocation.Invalid.self) { try BucketLocation(url: "s3://Bad_Bucket", region: "us-east-1") }
        #expect(throws: BucketLocation.Invalid.self) { try BucketLocation(url: "s3://scores/../x", region: "us-east-1") }
        #expect(throws: BucketLocation.Invalid.self) { try BucketLocation(url: "s3://scores", endpoint: "ftp://host", region: "us-east-1") }
    }
}
