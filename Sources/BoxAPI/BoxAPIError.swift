/// The one error type of the Box client: an error answer from Box, a failed transport, or a
/// response that could not be understood.
///
/// Built from Box's `ClientError` body (`type`, `status`, `code`, `message`, `context_info`,
/// `request_id`) when there is one, and from the `WWW-Authenticate` challenge of a 401/403, whose
/// body is often empty. `description` names the request by method and path only: never headers,
/// tokens, query strings or pre-signed download URLs.
public struct BoxAPIError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        case badRequest  // 400
        /// 401: the token was rejected and no other token could be obtained.
        case unauthorized
        /// 403: includes `insufficient_scope` (see `authError`) and refused `As-User`.
        case forbidden
        case notFound  // 404, 410
        case conflict  // 409, see `conflicts`
        case preconditionFailed  // 412: `If-Match` did not match
        case rateLimited  // 429, see `retryAfter`
        case server  // 5xx
        /// Any other status the request did not expect.
        case unexpectedStatus
        /// No HTTP answer (connection refused, reset, timeout, ...).
        case transport(String, isTransient: Bool)
        /// An answer whose body is not what Box sends.
        case decoding(String)
        /// The token provider could not supply a token.
        case tokenUnavailable(String)
    }

    public var kind: Kind
    /// The HTTP status, or 0 when there was no answer.
    public var status: Int
    /// Box's error `code`, e.g. `not_found`, `item_name_in_use`, `rate_limit_exceeded`.
    public var code: String?
    public var message: String?
    /// Box's `request_id` (body) or `box-request-id` (header), for support.
    public var requestID: String?
    /// Seconds from `Retry-After`, when the answer had one.
    public var retryAfter: Double?
    /// The `error` of a `WWW-Authenticate: Bearer` challenge: `invalid_token`, `insufficient_scope`, ...
    public var authError: String?
    /// For 409 `item_name_in_use`: the existing items (`context_info.conflicts`, object or array).
    public var conflicts: [BoxItem]
    /// Method and path of the failed request, e.g. `GET /2.0/folders/0/items`.
    public var request: String?
    /// This answer came to a repeat, and an earlier attempt of the same request may have been carried
    /// out by Box (it failed with a 5xx or its answer was lost): the answer may be that attempt's effect.
    public var earlierAttemptMayHaveLanded = false
    /// The HTTP client was shut down under the request (the process is stopping, or was killed): no answer of
    /// Box's, so nothing may be concluded from it.
    public var isClientShutDown = false

    public init(
        kind: Kind, status: Int = 0, code: String? = nil, message: String? = nil, requestID: String? = nil,
        retryAfter: Double? = nil, authError: String? = nil, conflicts: [BoxItem] = [], request: String? = nil
    ) {
        self.kind = kind
        self.status = status
        self.code = code
        self.message = message
        self.requestID = requestID
        self.retryAfter = retryAfter
        self.authError = authError
        self.conflicts = conflicts
        self.request = request
    }

    /// A 403 because the token lacks a scope (not a reason to refresh it).
    public var isInsufficientScope: Bool { authError == "insufficient_scope" }

    /// Worth trying again later: rate limiting, server trouble, transient transport failures.
    public var isTransient: Bool {
        switch kind {
        case .rateLimited, .server: return true
        case .transport(_, let isTransient): return isTransient
        default: return false
        }
    }

    /// The kind for an HTTP status that the request did not accept.
    public static func kind(forStatus status: Int) -> Kind {
        switch status {
        case 400: return .badRequest
        case 401: return .unauthorized
        case 403: return .forbidden
        case 404, 410: return .notFound
        case 409: return .conflict
        case 412: return .preconditionFailed
        case 429: return .rateLimited
        case 500...599: return .server
        default: return .unexpectedStatus
        }
    }

    public var description: String {
        var text = "Box API error"
        if let request { text += " (\(request))" }
        text += ": "
        switch kind {
        case .transport(let detail, _):
            text += "transport failure: \(detail)"
        case .decoding(let detail):
            text += "unexpected response\(status == 0 ? "" : " (status \(status))"): \(detail)"
        case .tokenUnavailable(let detail):
            text += "no access token: \(detail)"
        default:
            text += "\(status)"
            if let code { text += " \(code)" }
            if let authError, authError != code { text += " (\(authError))" }
            if let message, !message.isEmpty { text += ": \(message)" }
            if let retryAfter { text += "; retry after \(retryAfter) s" }
        }
        if let requestID { text += " [request id \(requestID)]" }
        return text.oneLine
    }
}
