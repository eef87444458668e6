/// One HTTP request.
public struct HTTPRequest: Sendable {
    public var method: HTTPMethod
    /// Absolute `http` or `https` URL.
    public var url: String
    /// Fields sent as given. `Content-Length` is computed from `body` (a caller's value is ignored);
    /// `Expect: 100-continue` is never sent.
    public var headers: HTTPHeaders
    public var body: HTTPBody
    /// Follow 3xx responses (the response then describes the last one). Off by default.
    public var followRedirects: Bool
    /// Time limits; nil uses the client's `HTTPClientConfiguration.timeouts`.
    public var timeouts: HTTPTimeouts?
    /// Where the response body goes.
    public var responseBody: HTTPResponseDestination
    /// Ask for a gzip-compressed body (`Accept-Encoding: gzip`) and hand it on decompressed: for JSON answers,
    /// which shrink several times on the wire. Never for content, whose bytes and ranges must arrive as stored.
    public var acceptsCompressedBody: Bool

    public init(
        method: HTTPMethod = .get,
        url: String,
        headers: HTTPHeaders = HTTPHeaders(),
        body: HTTPBody = .empty,
        followRedirects: Bool = false,
        timeouts: HTTPTimeouts? = nil,
        responseBody: HTTPResponseDestination = .memory,
        acceptsCompressedBody: Bool = false
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.followRedirects = followRedirects
        self.timeouts = timeouts
        self.responseBody = responseBody
        self.acceptsCompressedBody = acceptsCompressedBody
    }

    /// Rejects what would corrupt the request on the wire. Messages name the field, never its value.
    func validate() throws(HTTPError) {
        guard url.hasPrefix("http://") || url.hasPrefix("https://"),
              !url.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F })
        else {
            throw HTTPError(kind: .invalidRequest, message: "URL is not an absolute http(s) URL without spaces")
        }
        for field in headers.fields {
            guard !field.name.isEmpty, field.name.utf8.allSatisfy(Self.isTokenByte) else {
                throw HTTPError(kind: .invalidRequest, message: "header name '\(field.name)' is not a valid token")
            }
            guard !field.value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
                throw HTTPError(kind: .invalidRequest, message: "value of header '\(field.name)' contains CR, LF or NUL")
            }
        }
        for piece in body.pieces {
            if case .file(_, let offset, let length) = piece, offset < 0 || length < 0 {
                throw HTTPError(kind: .invalidRequest, message: "file body range has a negative offset or length")
            }
        }
        if case .fileDescriptor(let fd, let offset) = responseBody, fd < 0 || offset < 0 {
            throw HTTPError(kind: .invalidRequest, message: "response file descriptor or offset is negative")
        }
    }

    /// RFC 9110 token characters.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
