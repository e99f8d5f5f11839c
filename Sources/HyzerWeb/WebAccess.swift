import Hummingbird

/// Who may read the web pages: anyone who reaches the address, or only holders of the viewing
/// token (`ViewingToken`), offered once as `?token=` and then kept in a cookie.
public enum WebAccess: Sendable {
    case open
    case token(String)

    /// The cookie a browser keeps the token in after its first visit with `?token=`.
    static let cookieName = "hyzer_view"
}

/// The HTTP side is read-only and closed: every method but GET is refused with 405 before
/// routing, and with a token set, every route but `/health` needs it (401 otherwise).
struct AccessMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext
    let access: WebAccess

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .get else {
            return Response(
                status: .methodNotAllowed, headers: [.allow: "GET", .contentType: "text/plain; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: "read-only: only GET is served here\n")))
        }
        guard case .token(let token) = access, request.uri.path != "/health" else { return try await next(request, context) }
        if let offered = request.uri.queryParameters["token"], ViewingToken.matches(offered, token) {
            var response = try await next(request, context)
            response.setCookie(Cookie(name: WebAccess.cookieName, value: token, path: "/", httpOnly: true, sameSite: .lax))
            return response
        }
        let bearer = request.headers[.authorization].flatMap { $0.hasPrefix("Bearer ") ? $0.dropFirst(7) : nil }
        if let offered = bearer ?? request.cookies[WebAccess.cookieName].map({ Substring($0.value) }), ViewingToken.matches(offered, token)
        {
            return try await next(request, context)
        }
        return Response(
            status: .unauthorized, headers: [.contentType: "text/plain; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: "this page needs the viewing link that `hyzer-peer serve` printed\n")))
    }
}
