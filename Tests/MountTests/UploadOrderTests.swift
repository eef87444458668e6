import BoxTestSupport
import Foundation
import XCTest

/// The order waiting uploads go in: a file a user opens while it waits goes before the others.
final class UploadOrderTests: WriteTestCase {
    /// Eight new files: the first three hold the uploader's three slots (Box holds their uploads 1.5, 4 and 6 s), the
    /// other five wait in its queue. `cat` of the last one, then: it is sent as soon as a slot frees, before the four
    /// written before it (Box's ids count up in the order files are made).
    func testOpeningAFileThatWaitsToUploadSendsItNext() async throws {
        let fixture = try await startAndMount()
        // The first upload is held 1.5 s, the second 4 s, the third 6 s (each rule lets the ones before it pass).
        for (index, latency) in [1500, 4000, 6000].enumerated() {
            try api.addFault(["path_prefix": UploadPaths.newFile, "method": "POST", "latency_ms": latency, "count": 1,
                              "skip": index])
        }
        let names = (1...8).map { "f\($0).txt" }
        for name in names { try write("content of \(name)\n", to: fixture.path(name)) }
        let rules = { try self.api.call("GET", "/_control/faults")["entries"] as? [[String: Any]] ?? [] }
        try await Poll.until("three uploads held by Box", timeout: 20, interval: 0.05) {
            try rules().isEmpty ? true : nil
        }
        let waiting = try await Poll.until("five uploads queued", timeout: 20, interval: 0.05) { () -> [String]? in
            let uploads = try self.statusJSON(fixture)["uploads"] as? [[String: Any]] ?? []
            let queued = uploads.filter { $0["state"] as? String == "queued" }.compactMap { $0["name"] as? String }
            return queued.count == 5 ? queued.sorted() : nil
        }
        XCTAssertEqual(waiting, Array(names[3...]))

        XCTAssertEqual(try succeed(["cat", fixture.path("f8.txt")]), "content of f8.txt\n")
        try await Poll.until("every upload to land", timeout: 60, interval: 0.2) {
            (try self.statusJSON(fixture)["pending"] as? NSNumber)?.intValue == 0 ? true : nil
        }
        var ids: [String: Int] = [:]
        for name in names { ids[name] = Int(try XCTUnwrap(try api.entry(at: name)).id) }
        let opened = try XCTUnwrap(ids["f8.txt"])
        for name in names[3..<7] {
            XCTAssertLessThan(opened, try XCTUnwrap(ids[name]), "f8.txt, opened, reached Box before \(name): \(ids)")
        }
    }
}
