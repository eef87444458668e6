import BoxAuth
import CurlHTTP
import Foundation
import Synchronization
import XCTest

/// A source that counts its calls and hands out `T1`, `T2`, ... after a short delay.
final class CountingSource: TokenSource {
    let calls = Mutex(0)
    let lifetime: Double
    let delay: UInt64
    let failing: Bool

    init(lifetime: Double = 3600, delayMilliseconds: UInt64 = 50, failing: Bool = false) {
        self.lifetime = lifetime
        self.delay = delayMilliseconds * 1_000_000
        self.failing = failing
    }

    func fetchToken(previous: TokenInfo?) async throws -> TokenInfo {
        let number = calls.withLock { value in
            value += 1
            return value
        }
        try await Task.sleep(nanoseconds: delay)
        if failing { throw AuthError(.grantRefused("invalid_grant"), "Box refused the grant") }
        return TokenInfo(accessToken: "T\(number)", refreshToken: "R\(number)", expiresIn: lifetime)
    }
}

/// The authenticator shell: single flight under real concurrency, no loops, developer tokens.
final class AuthenticatorTests: XCTestCase {
    func testManyConcurrentRejectionsShareOneRefresh() async throws {
        let source = CountingSource()
        let authenticator = Authenticator(source: source, initial: TokenInfo(accessToken: "T0", expiresIn: 3600))
        let tokens = try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0..<64 { group.addTask { try await authenticator.tokenRejected("T0") } }
            return try await group.reduce(into: [String?]()) { $0.append($1) }
        }
        XCTAssertEqual(Set(tokens), ["T1"])
        XCTAssertEqual(source.calls.withLock { $0 }, 1)
        // A late rejection of the old token is answered with the current one, without a refresh.
        let late = try await authenticator.tokenRejected("T0")
        XCTAssertEqual(late, "T1")
        XCTAssertEqual(source.calls.withLock { $0 }, 1)
    }

    func testExpiringTokenIsRefreshedOnceBeforeSending() async throws {
        let source = CountingSource()
        let authenticator = Authenticator(
            source: source, initial: TokenInfo(accessToken: "T0", expiresIn: 30, obtainedAt: Date().addingTimeInterval(-20)))
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<32 { group.addTask { try await authenticator.accessToken() } }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        XCTAssertEqual(Set(tokens), ["T1"])
        XCTAssertEqual(source.calls.withLock { $0 }, 1)
    }

    func testRefusedRefreshReachesEveryWaiterAsNoToken() async throws {
        let source = CountingSource(failing: true)
        let authenticator = Authenticator(source: source, initial: TokenInfo(accessToken: "SECRET0", expiresIn: 3600))
        let results = try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0..<8 { group.addTask { try await authenticator.tokenRejected("SECRET0") } }
            return try await group.reduce(into: [String?]()) { $0.append($1) }
        }
        XCTAssertEqual(results, Array(repeating: nil, count: 8), "every waiter learns there is no other token")
        XCTAssertEqual(source.calls.withLock { $0 }, 1)
    }

    func testTransportFailureOfARefreshIsThrownWithoutSecrets() async throws {
        let endpoint = TokenEndpoint(apiBase: "http://127.0.0.1:1", http: HTTPClient())
        let source = ClientCredentialsSource(endpoint: endpoint, clientID: "id", clientSecret: "SECRET-CLIENT",
                                             subject: .enterprise("1"))
        let authenticator = Authenticator(source: source)
        do {
            _ = try await authenticator.accessToken()
            XCTFail("nothing listens on port 1")
        } catch {
            XCTAssertTrue("\(error)".contains("cannot reach the Box token endpoint"), "\(error)")
            XCTAssertFalse("\(error)".contains("SECRET"), "\(error)")
        }
    }

    func testDeveloperTokenIsNeverRefreshed() async throws {
        let authenticator = Authenticator.fixed("DEV")
        let token = try await authenticator.accessToken()
        XCTAssertEqual(token, "DEV")
        let replacement = try await authenticator.tokenRejected("DEV")
        XCTAssertNil(replacement, "a rejected developer token has no replacement")
        let expired = Authenticator.fixed("DEV", expiresAt: Date().addingTimeInterval(-1))
        do {
            _ = try await expired.accessToken()
            XCTFail("an expired developer token must fail")
        } catch let error as AuthError {
            XCTAssertEqual(error.kind, .developerTokenExpired)
            XCTAssertTrue(error.message.contains("developer token"), error.message)
        }
    }

    func testStoreIsReadFirstAndWrittenAfterARefresh() async throws {
        let store = MemoryTokenStore(TokenInfo(accessToken: "STORED", refreshToken: "R0", expiresIn: 3600))
        let source = CountingSource()
        let authenticator = Authenticator(source: source, store: store)
        let first = try await authenticator.accessToken()
        XCTAssertEqual(first, "STORED")
        XCTAssertEqual(source.calls.withLock { $0 }, 0, "a usable stored token needs no request")
        let second = try await authenticator.tokenRejected("STORED")
        XCTAssertEqual(second, "T1")
        let stored = try await store.read()
        XCTAssertEqual(stored?.accessToken, "T1")
    }
}
