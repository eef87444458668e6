import BoxAuth
import CurlHTTP
import Foundation
import Synchronization

@testable import BoxAPI

/// A stand-in transport for client logic tests: answers each request from a script and records
/// what was sent. (Tests against a real boxsim process live in BoxSimIntegrationTests.)
final class ScriptedHTTP: HTTPSending {
    typealias Handler = @Sendable (HTTPRequest, Int) throws -> HTTPResponse

    private let handler: Handler
    private let log = Mutex<[HTTPRequest]>([])  // guards the sent-request log across tasks

    init(_ handler: @escaping Handler) {
        self.handler = handler
    }

    var requests: [HTTPRequest] { log.withLock { $0 } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let index = log.withLock { sent in
            sent.append(request)
            return sent.count - 1
        }
        return try handler(request, index)
    }

    static func response(
        _ status: Int, json: String = "", headers: [(String, String)] = [], url: String = "https://api.test/"
    ) -> HTTPResponse {
        HTTPResponse(status: status, headers: HTTPHeaders(headers), body: Data(json.utf8), effectiveURL: url)
    }
}

/// Hands out `first`, then `next` once after a rejection; counts the calls.
final class RefreshingTokens: AccessTokenProvider {
    private let state = Mutex<(current: String, next: String?, rejections: [String])>(("", nil, []))

    init(first: String, next: String?) {
        state.withLock { $0 = (first, next, []) }
    }

    var rejections: [String] { state.withLock { $0.rejections } }

    func accessToken() async throws -> String {
        state.withLock { $0.current }
    }

    func tokenRejected(_ token: String) async throws -> String? {
        state.withLock { state in
            state.rejections.append(token)
            guard let next = state.next else { return nil }
            state.current = next
            state.next = nil
            return next
        }
    }
}

extension BoxClient {
    /// A client on a scripted transport with instant retries.
    static func scripted(
        _ http: ScriptedHTTP, tokens: any AccessTokenProvider = StaticTokenProvider(token: "T0KEN-secret"),
        retryPolicy: RetryPolicy = RetryPolicy(maxAttempts: 4, baseDelay: 0, maxDelay: 0, maxTotalWait: 5)
    ) -> BoxClient {
        BoxClient(
            endpoints: BoxEndpoints(serverBase: "https://api.test"), sender: http, tokens: tokens,
            retryPolicy: retryPolicy)
    }
}

let fileJSON = #"{"type":"file","id":"42","name":"a.txt","size":3}"#
let invalidTokenChallenge = (
    "WWW-Authenticate",
    #"Bearer realm="Service", error="invalid_token", error_description="The access token provided is invalid.""#
)
