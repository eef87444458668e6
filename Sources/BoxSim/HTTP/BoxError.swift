import Hummingbird

/// An error answered with Box's ClientError body (or, for 401, Box's empty body + WWW-Authenticate).
struct BoxError: Error {
    var status: HTTPResponse.Status
    var code: String
    var message: String
    var contextInfo: JSONValue?
    var headers: HTTPFields = [:]
    /// Box answers bad tokens with an empty body.
    var emptyBody = false

    static func notFound(_ message: String = "Not Found") -> BoxError {
        BoxError(status: .notFound, code: "not_found", message: message)
    }

    /// Box's 404 for a missing file (`f_<id>`) or folder (`d_<id>`).
    static func itemNotFound(_ value: String) -> BoxError {
        BoxError(status: .notFound, code: "not_found", message: "Not Found", contextInfo: .object([
            ("errors", .array([.object([
                ("reason", .string("invalid_parameter")), ("name", .string("item")),
                ("message", .string("Invalid value '\(value)'. 'item' with value '\(value)' not found")),
            ])]))]))
    }

    static func trashed() -> BoxError {
        BoxError(status: .notFound, code: "trashed", message: "Item is trashed")
    }

    static func methodNotAllowed() -> BoxError {
        BoxError(status: .methodNotAllowed, code: "method_not_allowed", message: "Method Not Allowed")
    }

    static func badRequest(_ message: String = "Bad Request", code: String = "bad_request",
                           contextInfo: JSONValue? = nil) -> BoxError {
        BoxError(status: .badRequest, code: code, message: message, contextInfo: contextInfo)
    }

    /// A 400 for one invalid query or body parameter, shaped like Box's validation errors.
    static func invalidParameter(_ name: String, _ message: String) -> BoxError {
        badRequest("Bad Request", contextInfo: .object([("errors", .array([.object([
            ("reason", .string("invalid_parameter")), ("name", .string(name)), ("message", .string(message)),
        ])]))]))
    }

    static func unauthorized(_ error: String = "invalid_token",
                             description: String = "The access token provided is invalid.") -> BoxError {
        var headers = HTTPFields()
        headers[.wwwAuthenticate] = "Bearer realm=\"Service\", error=\"\(error)\", error_description=\"\(description)\""
        return BoxError(status: .unauthorized, code: "unauthorized", message: "Unauthorized", headers: headers,
                        emptyBody: true)
    }

    /// 403 with an empty body, as Box answers scope and As-User failures.
    static func insufficientScope() -> BoxError {
        var headers = HTTPFields()
        headers[.wwwAuthenticate] = "Bearer realm=\"Service\", error=\"insufficient_scope\", "
            + "error_description=\"The request requires higher privileges than provided by the access token.\""
        return BoxError(status: .forbidden, code: "insufficient_scope", message: "Forbidden", headers: headers,
                        emptyBody: true)
    }

    static func internalError() -> BoxError {
        BoxError(status: .internalServerError, code: "internal_server_error", message: "Internal Server Error")
    }

    func response(requestID: String) -> Response {
        var fields = headers
        if emptyBody {
            return Response(status: status, headers: fields, body: .init())
        }
        var pairs: [(String, JSONValue)] = [
            ("type", .string("error")), ("status", .int(Int64(status.code))), ("code", .string(code)),
            ("message", .string(message)),
        ]
        if let contextInfo { pairs.append(("context_info", contextInfo)) }
        pairs.append(("help_url", .string("http://developers.box.com/docs/#errors")))
        pairs.append(("request_id", .string(requestID)))
        fields[.contentType] = "application/json"
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(string:
            JSONValue.object(pairs).serialized())))
    }
}

extension BoxError {
    /// Maps Hummingbird's own errors (unknown route, body too large, ...) to Box's shapes.
    init(_ error: HTTPError) {
        switch error.status {
        case .notFound: self = .notFound()
        case .methodNotAllowed: self = .methodNotAllowed()
        case .contentTooLarge:
            self = BoxError(status: .contentTooLarge, code: "request_entity_too_large",
                            message: "Request Entity Too Large")
        case .badRequest: self = .badRequest(error.body ?? "Bad Request")
        default:
            self = BoxError(status: error.status, code: error.status.reasonPhrase.lowercased()
                .replacingOccurrences(of: " ", with: "_"), message: error.status.reasonPhrase)
        }
    }
}

/// A JSON response body.
func jsonResponse(_ value: JSONValue, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
    var fields = headers
    fields[.contentType] = "application/json"
    return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: value.serializedBytes())))
}
