import BoxTestSupport
import Foundation
import XCTest

/// Helpers for tests of how the mount follows Box's event stream: its state in `boxfs status`, the stream
/// position it applied, and the request log split into event-stream requests and the rest.
class EventStreamTestCase: WriteTestCase {
    /// The `changes elsewhere:` line of `boxfs status`.
    func eventsLine(_ fixture: MountFixture) throws -> String {
        let text = try succeed([try MountFixture.locateBinary().path, "status", fixture.mountpoint.path])
        return text.split(separator: "\n").first { $0.contains("changes elsewhere:") }.map(String.init) ?? text
    }

    func waitUntilFollowing(_ fixture: MountFixture, timeout: Double = 10) async throws {
        try await Poll.until("the mount to follow Box's events", timeout: timeout, interval: 0.1) {
            try self.eventsLine(fixture).contains("following Box's events") ? true : nil
        }
    }

    /// Waits until the mount has applied the stream up to Box's latest position.
    func waitUntilCaughtUp(_ fixture: MountFixture, timeout: Double = 20) async throws {
        let latest = try XCTUnwrap(
            (try api.call("GET", "/2.0/events?stream_position=now")["next_stream_position"] as? NSNumber)?.stringValue)
        try await Poll.until("the mount to apply position \(latest)", timeout: timeout, interval: 0.1) {
            try self.statusJSON(fixture)["events_position"] as? String == latest ? true : nil
        }
    }

    func names(_ fixture: MountFixture, _ relative: String = "") throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: fixture.path(relative)).sorted()
    }

    /// The long poll (`/subscribe`), `OPTIONS /2.0/events` and `GET /2.0/events`.
    static func isEventStream(_ request: LoggedRequest) -> Bool {
        request.path == "/subscribe" || request.path == "/2.0/events"
    }

    /// The mount's listings of a folder (it pages by marker; the test's own `BoxSimAPI` look-ups by offset).
    static func isListing(_ request: LoggedRequest, folderID: String = "[0-9]+") -> Bool {
        request.method == "GET" && request.query?.contains("usemarker") == true
            && request.path.range(of: "^/2\\.0/folders/\(folderID)/items$", options: .regularExpression) != nil
    }
}
