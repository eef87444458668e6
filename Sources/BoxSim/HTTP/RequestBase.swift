import Hummingbird

/// The public base URLs (`PublicURLs`) of the request being served, for absolute URLs rendered deep inside
/// (shared-link URLs), without threading the request through every renderer.
enum RequestBase {
    @TaskLocal static var urls = PublicURLs(requestBase: "http://127.0.0.1")

    /// The base URL of `role` for the current request (`https://upload.box.com`, `http://127.0.0.1:41234`).
    static func url(_ role: PublicURLRole) -> String { urls.base(role) }
}

/// Sets `RequestBase.urls` for the rest of the chain.
struct RequestBaseMiddleware: RouterMiddleware {
    typealias Context = BoxContext
    let overrides: PublicURLOverrides

    func handle(_ request: Request, context: BoxContext,
                next: (Request, BoxContext) async throws -> Response) async throws -> Response {
        try await RequestBase.$urls.withValue(PublicURLs(request: request, overrides: overrides)) {
            try await next(request, context)
        }
    }
}
