import CCurl
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one error type of this layer. Messages never contain header values or URLs (both can carry
/// tokens); an HTTP error status is not an error here but a response.
public struct HTTPError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// curl failed the transfer; `curlCode` says how.
        case transport
        /// The request was rejected before anything was sent (bad URL, header or range).
        case invalidRequest
        /// A `.file` body piece could not be opened or read (`systemErrno` when known).
        case requestBody
        /// Writing to the response's file descriptor failed (`systemErrno`).
        case responseDestination
        /// The client was shut down before the request completed.
        case shutdown
    }

    public let kind: Kind
    /// curl's `CURLcode` for `.transport` errors.
    public let curlCode: Int?
    /// `errno` for file errors.
    public let systemErrno: Int32?
    /// A readable explanation without secrets.
    public let message: String

    public init(kind: Kind, message: String, curlCode: Int? = nil, systemErrno: Int32? = nil) {
        self.kind = kind
        self.message = message
        self.curlCode = curlCode
        self.systemErrno = systemErrno
    }

    /// Whether trying again later may succeed: the connection failed, was reset or cut, or timed out.
    /// Only transport failures qualify; the caller still decides whether the request is safe to repeat.
    public var isTransient: Bool {
        guard kind == .transport, let curlCode else { return false }
        return Self.transientCodes.contains(curlCode)
    }

    /// Nothing answered at the address at all (refused, unreachable, no such host): a wrong endpoint, or
    /// the network down.
    public var isUnreachable: Bool {
        kind == .transport
            && [Int(CURLE_COULDNT_CONNECT.rawValue), Int(CURLE_COULDNT_RESOLVE_HOST.rawValue)].contains(curlCode)
    }

    /// A connect, low-speed or total timeout.
    public var isTimeout: Bool {
        kind == .transport && curlCode == Int(CURLE_OPERATION_TIMEDOUT.rawValue)
    }

    public var description: String {
        switch kind {
        case .transport: "HTTP transport error (curl \(curlCode ?? -1)): \(message)"
        case .invalidRequest: "invalid HTTP request: \(message)"
        case .requestBody: "cannot read request body: \(message)"
        case .responseDestination: "cannot write response body: \(message)"
        case .shutdown: "HTTP client shut down: \(message)"
        }
    }

    private static let transientCodes: Set<Int> = Set([
        CURLE_COULDNT_RESOLVE_HOST,  // DNS hiccups
        CURLE_COULDNT_CONNECT,  // refused, unreachable
        CURLE_HTTP2,  // framing layer failure
        CURLE_PARTIAL_FILE,  // body shorter than Content-Length: the peer cut the connection
        CURLE_BAD_CONTENT_ENCODING,  // a gzip answer cut or damaged on the way
        CURLE_OPERATION_TIMEDOUT,  // connect, low-speed or total limit
        CURLE_SSL_CONNECT_ERROR,  // handshake interrupted
        CURLE_GOT_NOTHING,  // connection closed before any response
        CURLE_SEND_ERROR,  // reset while sending
        CURLE_RECV_ERROR,  // reset while receiving
        CURLE_HTTP2_STREAM,  // stream reset by the peer
        CURLE_HTTP3,
    ].map { Int($0.rawValue) })
}

extension HTTPError {
    static func transport(_ code: CURLcode, detail: String) -> HTTPError {
        let summary = String(cString: curl_easy_strerror(code))
        let message = detail.isEmpty || detail == summary ? summary : "\(summary): \(detail)"
        return HTTPError(kind: .transport, message: message, curlCode: Int(code.rawValue))
    }

    static func system(_ kind: Kind, _ what: String, errno code: Int32) -> HTTPError {
        HTTPError(kind: kind, message: "\(what): \(String(cString: strerror(code)))", systemErrno: code)
    }

    static let shutDown = HTTPError(kind: .shutdown, message: "the client no longer accepts requests")
}
