import BoxTestSupport
import Foundation
import XCTest

extension EventFollowTests {
    /// How long a change made elsewhere may take to show (the goal is ~2 s).
    static let visibleWithin: Double = 3

    /// Waits until `check` holds, at most `visibleWithin` seconds; answers the seconds it took.
    @discardableResult
    func waitUntilVisible(_ what: String, within: Double = visibleWithin, _ check: () throws -> Bool) async throws -> Double {
        let started = Date()
        try await Poll.until(what, timeout: within, interval: 0.1) { try check() ? true : nil }
        let elapsed = Date().timeIntervalSince(started)
        print("EventFollowTests: \(what) after \(String(format: "%.2f", elapsed)) s")
        return elapsed
    }

    func names(in relative: String = "") throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: XCTUnwrap(mount).path(relative)).sorted()
    }

    func contents(_ relative: String) throws -> String? {
        try? String(contentsOfFile: XCTUnwrap(mount).path(relative), encoding: .utf8)
    }

    /// boxsim with `texts` in the root, a short long poll, and a read-write mount with the default
    /// dir_cache_ttl (60 s) plus `options`.
    func startMounted(texts: [String: String], options: [String] = []) async throws {
        try await startBoxSim(texts: texts)
        try api.setLongPollTimeout(5)
        try mountWritable(options: options)
    }
}
