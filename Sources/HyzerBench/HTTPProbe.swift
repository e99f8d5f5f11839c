import Foundation

/// A minimal HTTP/1.1 client over a raw loopback socket: what a browser's first bytes look like,
/// with nothing between the bytes and the measurement (bench and tests of `serve --http`).
public final class HTTPProbe: @unchecked Sendable {
    // @unchecked: `received` is only touched by one read at a time, which its caller awaits.
    /// What the connection received so far, as text.
    public private(set) var received = ""
    private let descriptor: Int32

    /// Connects to 127.0.0.1:`port` and sends `method path` with `headers` ("Name: value").
    public init(port: Int, method: String = "GET", path: String, headers: [String] = [], body: String = "") throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw ProbeError.failed("socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(descriptor)
            throw ProbeError.failed("connect to port \(port)")
        }
        var request = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for header in headers { request += header + "\r\n" }
        if !body.isEmpty { request += "Content-Length: \(body.utf8.count)\r\n" }
        request += "\r\n" + body
        let bytes = Array(request.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw ProbeError.failed("send") }
            sent += count
        }
    }

    deinit { close(descriptor) }

    /// Forgets what was received so far, so the next `read` looks at new text only.
    public func discard() {
        received = ""
    }

    /// Reads until `condition` holds for everything received, the peer closes, or `seconds` pass;
    /// returns whether the condition held. The waiting happens on a thread of its own, never on
    /// the concurrency pool the server under test may need.
    @discardableResult
    public func read(seconds: Double = 30, until condition: @escaping @Sendable (String) -> Bool = { _ in false }) async -> Bool {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: self.blockingRead(seconds: seconds, until: condition)) }
        }
    }

    private func blockingRead(seconds: Double, until condition: (String) -> Bool) -> Bool {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while !condition(received) {
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline else { return false }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(min(1000, (deadline - now) / 1_000_000 + 1))) > 0 else { continue }
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count > 0 else { return condition(received) }
            received += String(decoding: buffer[0..<count], as: UTF8.self)
        }
        return true
    }

    /// One whole request: the status code, the header block and the body (read until close).
    public static func fetch(port: Int, method: String = "GET", path: String, headers: [String] = [], body: String = "") async throws
        -> (status: Int, head: String, body: String)
    {
        let probe = try HTTPProbe(port: port, method: method, path: path, headers: headers, body: body)
        await probe.read()
        let parts = probe.received.components(separatedBy: "\r\n\r\n")
        let head = parts.first ?? ""
        let status = head.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return (status, head, parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

    public enum ProbeError: Error {
        case failed(String)
    }
}
