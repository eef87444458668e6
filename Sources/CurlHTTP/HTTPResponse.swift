import Foundation

/// The final response of a request (after any followed redirect or `100 Continue`).
public struct HTTPResponse: Sendable {
    public var status: Int
    /// Fields of the final response only.
    public var headers: HTTPHeaders
    /// The body, unless it went to a file descriptor (see `HTTPResponseDestination`).
    public var body: Data
    /// Bytes written to the destination file descriptor; 0 for `.memory`.
    public var bodyBytesWritten: Int64
    /// The URL the final response came from (differs from the request's after a followed redirect).
    public var effectiveURL: String
    /// libcurl sent the request more than once: it does so on its own, with no error, when a kept-alive connection
    /// closes before any answer to the first send, which the server may nonetheless have carried out.
    public var wasSentAgain = false

    public init(status: Int, headers: HTTPHeaders, body: Data, bodyBytesWritten: Int64 = 0, effectiveURL: String) {
        self.status = status
        self.headers = headers
        self.body = body
        self.bodyBytesWritten = bodyBytesWritten
        self.effectiveURL = effectiveURL
    }

    public var isSuccess: Bool { (200..<300).contains(status) }
}
