import Hummingbird

/// The base URL (`http://<Host>`) of the request being served, for absolute URLs rendered deep inside
/// (shared-link URLs), without threading the request through every renderer.
enum RequestBase {
    @TaskLocal static var url = "http://127.0.0.1"
}

/// Sets `RequestBase.url` for the rest of the chain.
struct RequestBaseMiddleware: RouterMiddleware {
    typealias Context = BoxContext

    func handle(_ request: Request, context: BoxContext,
                next: (Request, BoxContext) async throws -> Response) async throws -> Response {
        try await RequestBase.$url.withValue(BaseURL.of(request)) { try await next(request, context) }
    }
}
