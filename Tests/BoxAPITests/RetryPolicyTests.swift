import CurlHTTP
import XCTest

@testable import BoxAPI

final class RetryPolicyTests: XCTestCase {
    private let policy = RetryPolicy(maxAttempts: 5, baseDelay: 0.5, maxDelay: 8, maxTotalWait: 30, jitter: 0.5)

    private func delay(
        _ failure: RetryPolicy.Failure, attempt: Int = 1, idempotent: Bool = true, waited: Double = 0,
        random: Double = 0, policy: RetryPolicy? = nil
    ) -> Double? {
        (policy ?? self.policy).delay(
            after: failure, attempt: attempt, isIdempotent: idempotent, waitedSoFar: waited, random: random)
    }

    func testBackoffDoublesUpToTheCapAndJitterStaysInBounds() {
        XCTAssertEqual((1...7).map { policy.backoff(attempt: $0, random: 0) }, [0.5, 1, 2, 4, 8, 8, 8])
        for attempt in 1...10 {
            let ceiling = min(8, 0.5 * Double(1 << (attempt - 1)))
            for step in 0...20 {
                let wait = policy.backoff(attempt: attempt, random: Double(step) / 20)
                XCTAssertLessThanOrEqual(wait, ceiling)
                XCTAssertGreaterThanOrEqual(wait, ceiling * 0.5)
            }
        }
        XCTAssertEqual(policy.backoff(attempt: 3, random: 1), 1)
        XCTAssertEqual(policy.backoff(attempt: 1_000, random: 0), 8, "no overflow for absurd attempt numbers")
    }

    func testRetryAfterIsHonouredExactly() {
        XCTAssertEqual(delay(.status(429, retryAfter: 7)), 7)
        XCTAssertEqual(delay(.status(503, retryAfter: 12), random: 0.9), 12, "no jitter shortens Retry-After")
        XCTAssertEqual(delay(.status(202, retryAfter: 0)), 0)
        XCTAssertEqual(delay(.status(429, retryAfter: nil), attempt: 2, random: 0), 1, "backoff without Retry-After")
    }

    func testRetryAfterBeyondTheBudgetGivesUp() {
        XCTAssertNil(delay(.status(429, retryAfter: 31)))
        XCTAssertNil(delay(.status(429, retryAfter: 10), waited: 25))
        XCTAssertEqual(delay(.status(429, retryAfter: 10), waited: 20), 10)
    }

    func testWhatIsRetried() {
        for status in [202, 429, 500, 502, 503, 504] {
            XCTAssertNotNil(delay(.status(status, retryAfter: nil)), "\(status)")
        }
        for status in [400, 401, 403, 404, 409, 412, 416, 501] {
            XCTAssertNil(delay(.status(status, retryAfter: nil)), "\(status)")
        }
        XCTAssertNotNil(delay(.transport(isTransient: true)))
        XCTAssertNil(delay(.transport(isTransient: false)))
    }

    func testNonIdempotentRequestsAreRetriedOnlyAfterARefusal() {
        XCTAssertNil(delay(.status(503, retryAfter: 1), idempotent: false))
        XCTAssertNil(delay(.transport(isTransient: true), idempotent: false))
        XCTAssertEqual(delay(.status(429, retryAfter: 1), idempotent: false), 1, "a 429 was not carried out")
    }

    func testWhatMayHaveBeenCarriedOut() {
        XCTAssertTrue(RetryPolicy.Failure.status(500, retryAfter: nil).mayHaveBeenApplied)
        XCTAssertTrue(RetryPolicy.Failure.transport(isTransient: true).mayHaveBeenApplied)
        XCTAssertFalse(RetryPolicy.Failure.status(429, retryAfter: 1).mayHaveBeenApplied)
        XCTAssertFalse(RetryPolicy.Failure.status(202, retryAfter: 1).mayHaveBeenApplied)
    }

    func testUntilDoneHasNoLimitButKeepsTheBackoffCap() {
        let forever = RetryPolicy.untilDone(baseDelay: 1, maxDelay: 60, jitter: 0)
        XCTAssertEqual(forever.delay(after: .status(500, retryAfter: nil), attempt: 10_000, isIdempotent: true,
                                     waitedSoFar: 1e9, random: 0), 60)
        XCTAssertEqual(forever.wait(retryAfter: 120, attempt: 1, random: 0), 120)
        XCTAssertEqual(forever.wait(retryAfter: nil, attempt: 3, random: 0), 4)
    }

    func testAttemptsAreBounded() {
        XCTAssertNotNil(delay(.status(500, retryAfter: nil), attempt: 4))
        XCTAssertNil(delay(.status(500, retryAfter: nil), attempt: 5))
        XCTAssertNil(delay(.status(500, retryAfter: 0), attempt: 1, policy: .noRetries))
    }

    /// Simulates a server that always fails: total waiting never exceeds the budget and sends
    /// never exceed maxAttempts, whatever the jitter draws.
    func testTotalWaitStaysWithinTheBudget() {
        let tight = RetryPolicy(maxAttempts: 20, baseDelay: 1, maxDelay: 16, maxTotalWait: 30, jitter: 0.3)
        for seed in 0..<200 {
            var waited = 0.0
            var attempt = 1
            while let wait = tight.delay(
                after: .status(503, retryAfter: nil), attempt: attempt, isIdempotent: true, waitedSoFar: waited,
                random: Double((seed * 7919 + attempt * 104_729) % 1000) / 1000)
            {
                waited += wait
                attempt += 1
            }
            XCTAssertLessThanOrEqual(waited, 30)
            XCTAssertLessThanOrEqual(attempt, 20)
            XCTAssertGreaterThan(attempt, 3, "a few retries happen before the budget runs out")
        }
    }

    func testRetryAfterHeaderForms() {
        XCTAssertEqual(RetryAfter.seconds(from: "120"), 120)
        XCTAssertEqual(RetryAfter.seconds(from: " 1.5 "), 1.5)
        XCTAssertEqual(RetryAfter.seconds(from: "-3"), 0)
        let now = Date(timeIntervalSince1970: 784_111_767)  // Sun, 06 Nov 1994 08:49:27 GMT
        XCTAssertEqual(RetryAfter.seconds(from: "Sun, 06 Nov 1994 08:49:37 GMT", now: now), 10)
        XCTAssertEqual(RetryAfter.seconds(from: "Sun, 06 Nov 1994 08:49:17 GMT", now: now), 0)
        XCTAssertNil(RetryAfter.seconds(from: "soon"))
    }
}
