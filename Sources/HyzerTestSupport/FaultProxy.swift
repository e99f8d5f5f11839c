import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// An HTTP proxy on loopback in front of a real S3 store (`SeaweedFS`) that fails the requests a
/// test chooses, as a real store sometimes does and SeaweedFS cannot be made to
/// (docs/bucket-sync.md, "Tests"): 503 SlowDown, a request never answered (a stall, ended by the
/// client's deadline), or 403 RequestTimeTooSkewed. Every other request goes to the store
/// unchanged, its `Host` header and signature included, and its answer comes back with
/// `Connection: close`. Bounded: a request body over `bodyBytesMax` is answered 413; a stalled
/// connection lives until its client gives up or the proxy stops. Stopped when the value dies.
public final class FaultProxy: Sendable {
    /// What a chosen request gets instead of the store's answer.
    public enum Fault: Sendable, Equatable {
        /// 503 with S3's `SlowDown` error.
        case slowDown
        /// No answer at all: the client's deadline ends the try.
        case stall
        /// 403 with S3's `RequestTimeTooSkewed` error.
        case clockSkewed
    }

    /// The port it listens on, on 127.0.0.1.
    public let port: Int
    private let rules: FaultRules
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    private let client: HTTPClient
    private let stopped = Mutex(false)

    /// `http://127.0.0.1:PORT`: what to give as a bucket's endpoint.
    public var endpoint: String { "http://127.0.0.1:\(port)" }

    /// A proxy to the store listening on 127.0.0.1:`upstreamPort`.
    public init(upstreamPort: Int, bodyBytesMax: Int = 16 << 20) throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let client = HTTPClient(
            eventLoopGroup: group,
            configuration: .init(
                redirectConfiguration: .disallow, timeout: .init(connect: .seconds(5), read: .seconds(60)), decompression: .disabled))
        let rules = FaultRules()
        let upstream = "http://127.0.0.1:\(upstreamPort)"
        do {
            channel = try ServerBootstrap(group: group)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                        try channel.pipeline.syncOperations.addHandler(
                            FaultProxyHandler(rules: rules, client: client, upstream: upstream, bodyBytesMax: bodyBytesMax))
                    }
                }
                .bind(host: "127.0.0.1", port: 0).wait()
        } catch {
            try? client.syncShutdown()
            try? group.syncShutdownGracefully()
            throw error
        }
        self.group = group
        self.client = client
        self.rules = rules
        port = channel.localAddress?.port ?? 0
    }

    /// The next `times` requests for which `matches(method, path and query)` holds get `fault`.
    public func inject(_ fault: Fault, times: Int = 1, where matches: @escaping @Sendable (String, String) -> Bool = { _, _ in true }) {
        rules.add(FaultRules.Rule(fault: fault, remaining: times, matches: matches))
    }

    /// Faults served so far.
    public var faultsServed: Int { rules.served }

    /// Stops listening, closes every connection, stalled ones included.
    public func stop() {
        guard
            stopped.withLock({ stopped in
                defer { stopped = true }
                return !stopped
            })
        else { return }
        try? channel.close().wait()
        try? client.syncShutdown()
        try? group.syncShutdownGracefully()
    }

    deinit { stop() }
}

/// The faults still to serve, shared by every connection.
final class FaultRules: Sendable {
    struct Rule {
        let fault: FaultProxy.Fault
        var remaining: Int
        let matches: @Sendable (String, String) -> Bool
    }

    private let state = Mutex((rules: [Rule](), served: 0))

    func add(_ rule: Rule) { state.withLock { $0.rules.append(rule) } }

    var served: Int { state.withLock { $0.served } }

    /// The fault for this request, if a rule still matches it (and counts it).
    func take(method: String, path: String) -> FaultProxy.Fault? {
        state.withLock { state in
            guard let index = state.rules.firstIndex(where: { $0.remaining > 0 && $0.matches(method, path) }) else { return nil }
            state.rules[index].remaining -= 1
            state.served += 1
            return state.rules[index].fault
        }
    }
}

/// One connection: reads a whole request, then fails it or forwards it.
final class FaultProxyHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let rules: FaultRules
    let client: HTTPClient
    let upstream: String
    let bodyBytesMax: Int
    private var head: HTTPRequestHead?
    private var body = ByteBuffer()
    private var tooLarge = false

    init(rules: FaultRules, client: HTTPClient, upstream: String, bodyBytesMax: Int) {
        self.rules = rules
        self.client = client
        self.upstream = upstream
        self.bodyBytesMax = bodyBytesMax
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body.clear()
            tooLarge = false
        case .body(var chunk):
            if body.readableBytes + chunk.readableBytes > bodyBytesMax { tooLarge = true } else { body.writeBuffer(&chunk) }
        case .end:
            guard let head else { return }
            self.head = nil
            guard !tooLarge else { return answer(context, .payloadTooLarge, code: "EntityTooLarge", message: "over the proxy's bound") }
            switch rules.take(method: head.method.rawValue, path: head.uri) {
            case .slowDown: answer(context, .serviceUnavailable, code: "SlowDown", message: "Please reduce your request rate.")
            case .clockSkewed:
                answer(
                    context, .forbidden, code: "RequestTimeTooSkewed",
                    message: "The difference between the request time and the current time is too large.")
            case .stall: break  // never answered
            case nil: forward(context, head)
            }
        }
    }

    /// Sends the request to the store as it came (but for hop-by-hop headers) and its answer back.
    private func forward(_ context: ChannelHandlerContext, _ head: HTTPRequestHead) {
        var headers = head.headers
        for name in ["content-length", "transfer-encoding", "connection"] { headers.remove(name: name) }
        let request: HTTPClient.Request
        do {
            request = try HTTPClient.Request(
                url: upstream + head.uri, method: head.method, headers: headers,
                body: head.method == .PUT || body.readableBytes > 0 ? .byteBuffer(body) : nil)
        } catch {
            return answer(context, .badGateway, code: "ProxyError", message: "not a request the proxy can forward")
        }
        client.execute(request: request, deadline: .now() + .seconds(60)).hop(to: context.eventLoop).assumeIsolated().whenComplete {
            result in
            switch result {
            case .success(let response):
                var headers = response.headers
                for name in ["transfer-encoding", "connection"] { headers.remove(name: name) }
                self.write(context, response.status, headers: headers, body: response.body ?? ByteBuffer())
            case .failure:
                self.answer(context, .badGateway, code: "ProxyError", message: "the store did not answer")
            }
        }
    }

    /// An S3 error answer.
    private func answer(_ context: ChannelHandlerContext, _ status: HTTPResponseStatus, code: String, message: String) {
        let xml = #"<?xml version="1.0" encoding="UTF-8"?><Error><Code>\#(code)</Code><Message>\#(message)</Message></Error>"#
        write(context, status, headers: ["content-type": "application/xml"], body: ByteBuffer(string: xml))
    }

    private func write(_ context: ChannelHandlerContext, _ status: HTTPResponseStatus, headers: HTTPHeaders, body: ByteBuffer) {
        var headers = headers
        headers.replaceOrAdd(name: "content-length", value: "\(body.readableBytes)")
        headers.replaceOrAdd(name: "connection", value: "close")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }
}
