import BoxAuth
import Foundation
import XCTest

/// The pure rules of the authenticator, without any I/O.
final class AuthenticatorStateTests: XCTestCase {
    let now = Date(timeIntervalSince1970: 1_000_000)

    func token(_ text: String, expiresIn: Double? = 3600, refresh: String? = "r-\(UUID().uuidString)") -> TokenInfo {
        TokenInfo(accessToken: text, refreshToken: refresh, expiresIn: expiresIn, obtainedAt: now)
    }

    func testValidTokenIsUsedWithoutRefresh() {
        var state = AuthenticatorState(credential: token("A"), canRefresh: true)
        XCTAssertEqual(state.tokenRequested(now: now.addingTimeInterval(100), waiter: 1), .use("A"))
        XCTAssertEqual(state.refreshCount, 0)
    }

    func testTokenWithinTheMarginIsRefreshedBeforeSending() {
        var state = AuthenticatorState(credential: token("A"), canRefresh: true, margin: 60)
        XCTAssertEqual(state.tokenRequested(now: now.addingTimeInterval(3539), waiter: 1), .use("A"))
        XCTAssertEqual(state.tokenRequested(now: now.addingTimeInterval(3541), waiter: 2), .startRefresh(.expiring))
        XCTAssertEqual(state.refreshCount, 1)
    }

    func testMarginIsCappedAtHalfTheLifetime() {
        var state = AuthenticatorState(credential: token("A", expiresIn: 30), canRefresh: true, margin: 60)
        XCTAssertEqual(state.tokenRequested(now: now.addingTimeInterval(10), waiter: 1), .use("A"))
        XCTAssertEqual(state.tokenRequested(now: now.addingTimeInterval(16), waiter: 2), .startRefresh(.expiring))
    }

    func testConcurrentCallersShareOneRefresh() {
        var state = AuthenticatorState(credential: token("A"), canRefresh: true)
        let later = now.addingTimeInterval(3590)
        XCTAssertEqual(state.tokenRequested(now: later, waiter: 1), .startRefresh(.expiring))
        for waiter in 2...64 {
            XCTAssertEqual(state.tokenRequested(now: later, waiter: waiter), .wait)
        }
        XCTAssertEqual(state.tokenRejected("A", now: later, waiter: 65), .wait)
        let resumed = state.refreshFinished(.success(TokenInfo(accessToken: "B", expiresIn: 3600, obtainedAt: later)))
        XCTAssertEqual(resumed, Array(1...65))
        XCTAssertEqual(state.refreshCount, 1)
        XCTAssertEqual(state.tokenRequested(now: later, waiter: 66), .use("B"))
    }

    func testRejectionOfTheCurrentTokenRefreshesOnce() {
        var state = AuthenticatorState(credential: token("A"), canRefresh: true)
        XCTAssertEqual(state.tokenRejected("A", now: now, waiter: 1), .startRefresh(.rejected("A")))
        XCTAssertEqual(state.tokenRejected("A", now: now, waiter: 2), .wait)
        XCTAssertEqual(state.refreshFinished(.success(token("B"))), [1, 2])
        // A request that was in flight with A and is rejected after the refresh: retry with B, no refresh.
        XCTAssertEqual(state.tokenRejected("A", now: now, waiter: 3), .use("B"))
        XCTAssertEqual(state.refreshCount, 1)
    }

    func testFailedRefreshResumesEveryWaiterAndAllowsALaterAttempt() {
        var state = AuthenticatorState(credential: token("A"), canRefresh: true)
        XCTAssertEqual(state.tokenRejected("A", now: now, waiter: 1), .startRefresh(.rejected("A")))
        XCTAssertEqual(state.tokenRequested(now: now, waiter: 2), .wait)
        XCTAssertEqual(state.refreshFinished(.failure(AuthError(.grantRefused("invalid_grant"), "no"))), [1, 2])
        XCTAssertEqual(state.credential?.accessToken, "A")
        XCTAssertEqual(state.tokenRejected("A", now: now, waiter: 3), .startRefresh(.rejected("A")))
    }

    func testDeveloperTokenNeverRefreshes() {
        var state = AuthenticatorState(credential: token("D", expiresIn: nil, refresh: nil), canRefresh: false)
        XCTAssertEqual(state.tokenRequested(now: now.addingTimeInterval(1e6), waiter: 1), .use("D"))
        guard case .fail(let error) = state.tokenRejected("D", now: now, waiter: 2) else {
            return XCTFail("a developer token must not refresh")
        }
        XCTAssertTrue(error.message.contains("developer token"), error.message)
        XCTAssertEqual(state.refreshCount, 0)
    }

    func testDeveloperTokenPastItsKnownExpirySaysSo() {
        var state = AuthenticatorState(credential: token("D", expiresIn: 60, refresh: nil), canRefresh: false)
        XCTAssertEqual(state.tokenRequested(now: now.addingTimeInterval(59), waiter: 1), .use("D"))
        XCTAssertEqual(
            state.tokenRequested(now: now.addingTimeInterval(61), waiter: 2),
            .fail(AuthenticatorStateTests.expired))
    }

    static let expired: AuthError = {
        var state = AuthenticatorState(
            credential: TokenInfo(accessToken: "x", expiresAt: Date(timeIntervalSince1970: 0)), canRefresh: false)
        guard case .fail(let error) = state.tokenRequested(now: Date(), waiter: 0) else { fatalError() }
        return error
    }()

    func testNoCredentialStartsAnInitialFetch() {
        var state = AuthenticatorState(credential: nil, canRefresh: true)
        XCTAssertEqual(state.tokenRequested(now: now, waiter: 1), .startRefresh(.initial))
        XCTAssertEqual(state.tokenRequested(now: now, waiter: 2), .wait)
    }

    func testUnderLockAdoptsATokenAnotherProcessRefreshed() {
        let held = token("A")
        let stored = token("B")
        let later = now.addingTimeInterval(100)
        XCTAssertEqual(
            AuthenticatorState.underLock(stored: stored, held: held, reason: .rejected("A"), now: later, margin: 60),
            .adopt(stored))
        XCTAssertEqual(
            AuthenticatorState.underLock(stored: held, held: held, reason: .rejected("A"), now: later, margin: 60),
            .fetch(basis: held))
        // Expiring: the stored token is ours, so refresh from it (its refresh token is the newest).
        XCTAssertEqual(
            AuthenticatorState.underLock(stored: held, held: held, reason: .expiring, now: later, margin: 60),
            .fetch(basis: held))
        // Another process refreshed, but its token is also expiring: refresh from it, not from ours.
        let staleStored = token("C", expiresIn: 120)
        XCTAssertEqual(
            AuthenticatorState.underLock(stored: staleStored, held: held, reason: .expiring, now: later, margin: 60),
            .fetch(basis: staleStored))
        XCTAssertEqual(
            AuthenticatorState.underLock(stored: nil, held: held, reason: .expiring, now: later, margin: 60),
            .fetch(basis: held))
        XCTAssertEqual(
            AuthenticatorState.underLock(stored: stored, held: nil, reason: .initial, now: later, margin: 60),
            .adopt(stored))
    }

    func testTokenInfoNeverPrintsItsSecrets() throws {
        let info = TokenInfo(accessToken: "SECRET-ACCESS", refreshToken: "SECRET-REFRESH", expiresIn: 60)
        var dumped = ""
        dump(info, to: &dumped)
        for text in ["\(info)", String(reflecting: info), dumped] {
            XCTAssertFalse(text.contains("SECRET"), text)
        }
        let decoded = try JSONDecoder().decode(TokenInfo.self, from: JSONEncoder().encode(info))
        XCTAssertEqual(decoded.accessToken, "SECRET-ACCESS")
        XCTAssertEqual(decoded.refreshToken, "SECRET-REFRESH")
        XCTAssertEqual(decoded.expiresAt!.timeIntervalSince1970, info.expiresAt!.timeIntervalSince1970, accuracy: 0.001)
    }
}
