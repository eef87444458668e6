import BoxAuth
import CurlHTTP
import Logging

/// The Box REST client: endpoints, authorization, `As-User`, retries and Box's error model.
/// A value: copies share the HTTP client and the token provider. Resource calls live in one
/// extension per resource (Users, Folders, Files, Downloads).
public struct BoxClient: Sendable {
    public let endpoints: BoxEndpoints
    public let retryPolicy: RetryPolicy
    let http: any HTTPSending
    let tokens: any AccessTokenProvider
    /// Sent with every API call (never to pre-signed download URLs), e.g. `As-User`, `BoxApi`.
    let extraHeaders: [(String, String)]
    let logger: Logger
    /// Whether Box answers, shared by every copy of this client.
    public let connectivity: Connectivity
    /// Paces the calls under Box's limits before they are sent (nil: unpaced); shared by every copy.
    public let pacer: Pacer?

    public init(
        endpoints: BoxEndpoints, http: HTTPClient, tokens: any AccessTokenProvider,
        extraHeaders: [(String, String)] = [], retryPolicy: RetryPolicy = .standard,
        logger: Logger = Logger(label: "boxfs.api")
    ) {
        self.init(
            endpoints: endpoints, sender: http, tokens: tokens, extraHeaders: extraHeaders, retryPolicy: retryPolicy,
            logger: logger)
    }

    /// Over any transport: CurlHTTP's `HTTPClient`, or an in-process stand-in (the core's model tests run the
    /// whole filesystem against a fake Box this way, with no socket).
    public init(
        endpoints: BoxEndpoints, sender: any HTTPSending, tokens: any AccessTokenProvider,
        extraHeaders: [(String, String)] = [], retryPolicy: RetryPolicy = .standard,
        logger: Logger = Logger(label: "boxfs.api"), connectivity: Connectivity? = nil, pacer: Pacer? = nil
    ) {
        self.connectivity = connectivity ?? Connectivity(logger: logger)
        self.pacer = pacer
        self.endpoints = endpoints
        self.http = sender
        self.tokens = tokens
        self.extraHeaders = extraHeaders
        self.retryPolicy = retryPolicy
        self.logger = logger
    }

    /// A copy that acts as another user (`As-User: <id>`; needs an admin or a service account
    /// with the right scopes). The original client is unchanged.
    public func asUser(_ userID: String) -> BoxClient {
        withHeader("As-User", userID)
    }

    /// A copy that sends `name: value` on every API call, replacing an earlier value of `name`.
    public func withHeader(_ name: String, _ value: String) -> BoxClient {
        var headers = extraHeaders.filter { $0.0.lowercased() != name.lowercased() }
        headers.append((name, value))
        return BoxClient(
            endpoints: endpoints, sender: http, tokens: tokens, extraHeaders: headers, retryPolicy: retryPolicy,
            logger: logger, connectivity: connectivity, pacer: pacer)
    }

    /// A copy that retries by `policy` (e.g. a quick, nearly retry-free probe at mount time).
    public func withRetryPolicy(_ policy: RetryPolicy) -> BoxClient {
        BoxClient(
            endpoints: endpoints, sender: http, tokens: tokens, extraHeaders: extraHeaders, retryPolicy: policy,
            logger: logger, connectivity: connectivity, pacer: pacer)
    }

    /// A copy whose calls `pacer` paces (nil: unpaced).
    public func withPacer(_ pacer: Pacer?) -> BoxClient {
        BoxClient(
            endpoints: endpoints, sender: http, tokens: tokens, extraHeaders: extraHeaders, retryPolicy: retryPolicy,
            logger: logger, connectivity: connectivity, pacer: pacer)
    }

    /// The value of an extra header, e.g. `header("As-User")`.
    public func header(_ name: String) -> String? {
        extraHeaders.last { $0.0.lowercased() == name.lowercased() }?.1
    }

    /// `<apiBase>/2.0/<segments...>?<query>`.
    func apiURL(_ segments: String..., query: [(String, String)] = []) -> String {
        BoxURL.make(endpoints.apiBase, ["2.0"] + segments, query: query)
    }
}
