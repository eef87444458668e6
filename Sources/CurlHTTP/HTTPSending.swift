/// What a client of the HTTP layer needs from it: `HTTPClient` on the wire, or an in-process stand-in in tests
/// (a scripted transport, or a whole fake Box that the filesystem core's model tests run against).
public protocol HTTPSending: Sendable {
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}

extension HTTPClient: HTTPSending {}
