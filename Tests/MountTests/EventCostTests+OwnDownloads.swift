import BoxTestSupport
import Foundation
import XCTest

extension EventCostTests {
    /// Every download is an event of the user's stream and wakes the long poll: reading 120 files, one every
    /// 50 ms or so, costs at most one `GET /2.0/events` per 2 s (`EventFollower.minimumFetchInterval`), and a
    /// file created elsewhere meanwhile still shows within about 2 seconds.
    func testTheMountsOwnDownloadsCostAtMostOneEventFetchPerTwoSeconds() async throws {
        var texts: [String: String] = [:]
        for index in 0..<120 { texts["read/f\(index).txt"] = "\(index)\n" }
        texts["watched/a.txt"] = "a\n"
        try await startBoxSim(texts: texts)
        try api.setLongPollTimeout(5)
        let fixture = try mountWritable(options: ["cache=off"])
        try await waitUntilFollowing(fixture)
        XCTAssertEqual(try names(fixture, "watched"), ["a.txt"])
        let watched = try XCTUnwrap(try api.entry(at: "watched"))
        let before = try lastSequence(try XCTUnwrap(boxsim))

        let started = Date()
        let mountpoint = fixture.mountpoint.path
        let reader = Task.detached {
            try Shell.run(["bash", "-c", "for f in \"$1\"/read/*; do cat \"$f\" > /dev/null; sleep 0.05; done", "reader", mountpoint])
        }
        try await Task.sleep(nanoseconds: 3_000_000_000)
        _ = try api.uploadFile(named: "new.txt", text: "new\n", parentID: watched.id)
        let created = Date()
        try await Poll.until("the file made elsewhere to show", timeout: 10, interval: 0.05) {
            try self.names(fixture, "watched").contains("new.txt") ? true : nil
        }
        let shown = Date().timeIntervalSince(created)
        let read = try await reader.value
        XCTAssertEqual(read.status, 0, read.stderr)
        let duration = Date().timeIntervalSince(started)

        let fetches = try requests().after(before).filter { $0.method == "GET" && $0.path == "/2.0/events" }
        let downloads = try requests().after(before).filter { $0.path.hasPrefix("/2.0/files/") && $0.path.hasSuffix("/content") }
        print("EventCostTests: \(downloads.count) content calls in \(String(format: "%.1f", duration)) s cost \(fetches.count) GET /2.0/events; a change elsewhere showed after \(String(format: "%.2f", shown)) s")
        XCTAssertGreaterThanOrEqual(downloads.count, 120)
        XCTAssertLessThanOrEqual(Double(fetches.count), duration / 2 + 2, "own downloads woke more fetches than one per 2 s")
        XCTAssertLessThan(shown, 3.5, "a change elsewhere showed later than about 2 seconds")
    }
}
