import Hummingbird

/// Renders what the routes refuse as a page for browsers; `/api` keeps Hummingbird's plain
/// errors for scripts. Anything else that fails is a 500 with no detail of the store.
struct ErrorPages: RouterMiddleware {
    typealias Context = BasicRequestContext
    let templates: WebTemplates

    struct Model {
        let title: String
        let message: String
        let api: String? = nil
        let links = SiteLinks.live
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where !request.uri.path.hasPrefix("/api/") && error.status == .notFound {
            return page(.notFound, Model(title: "Not found", message: error.body ?? "Nothing is served at this address."))
        } catch let error as HTTPError {
            throw error
        } catch {
            context.logger.error("request failed", metadata: ["path": "\(request.uri.path)", "reason": "\(error)"])
            return page(
                .internalServerError, Model(title: "Cannot read the replica", message: "The store could not be read; see the server's log.")
            )
        }
    }

    private func page(_ status: HTTPResponse.Status, _ model: Model) -> Response {
        Response(
            status: status, headers: [.contentType: "text/html; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: templates.render(.error, model))))
    }
}
