import BoxTestSupport
import Foundation
import XCTest

/// Names Box would refuse fail with the right errno before any Box call; valid but unusual names arrive exactly.
final class NameRulesTests: WriteTestCase {
    /// Names Box refuses: a backslash, a trailing space, non-printable ASCII.
    static let refused = ["back\\slash.txt", "trailing space ", "control\u{01}char.txt", "delete\u{7F}char.txt",
                          "tab\tinside.txt"]

    func testNamesBoxRefusesAreEINVALBeforeAnyBoxCall() async throws {
        let mount = try await startAndMount(texts: ["ok.txt": "fine\n"])
        let before = try lastSequence(try XCTUnwrap(boxsim))
        for name in Self.refused {
            try fail(["touch", mount.path(name)], with: "Invalid argument")
            try fail(["mkdir", mount.path(name)], with: "Invalid argument")
            // rename(2) is EPERM: GNU mv words EINVAL from rename as "a subdirectory of itself".
            try fail(["python3", "-c", "import os, sys; os.rename(sys.argv[1], sys.argv[2])", mount.path("ok.txt"),
                      mount.path(name)], with: "Operation not permitted")
        }
        let moved = try Shell.run(["mv", mount.path("ok.txt"), mount.path("ok.txt ")])
        XCTAssertNotEqual(moved.status, 0)
        XCTAssertTrue(moved.stderr.contains("Operation not permitted"), moved.stderr)
        XCTAssertFalse(moved.stderr.contains("subdirectory of itself"), moved.stderr)
        // The reason is in the log at the default level.
        let log = try String(contentsOf: try XCTUnwrap(daemonLogs.first), encoding: .utf8)
        XCTAssertTrue(log.contains("Box refuses names ending in a space"), log)
        let requestLog = try requests().after(before)
        XCTAssertTrue(requestLog.writes.isEmpty, "no Box call tried these names\n\(requestLog.summary)")
        XCTAssertEqual(try boxNames(in: ""), ["ok.txt"])
        XCTAssertEqual(try succeed(["ls", mount.mountpoint.path]), "ok.txt\n")
    }

    func testANameOnlyBoxRefusesIsExplainedInTheLogAndMvSaysNothingAboutSubdirectories() async throws {
        let mount = try await startAndMount(texts: ["ok.txt": "fine\n"])
        try succeed(["mkdir", mount.path("dir")])
        try api.addFault(["path_prefix": "/2.0/", "method": "PUT", "error_status": 400, "error_code": "item_name_invalid"])
        let moved = try Shell.run(["mv", mount.path("dir"), mount.path("renamed")])
        XCTAssertNotEqual(moved.status, 0)
        XCTAssertTrue(moved.stderr.contains("Operation not permitted"), moved.stderr)
        XCTAssertFalse(moved.stderr.contains("subdirectory of itself"), moved.stderr)
        try api.addFault(["path_prefix": "/2.0/folders", "method": "POST", "error_status": 400, "error_code": "item_name_invalid"])
        try fail(["mkdir", mount.path("other")], with: "Invalid argument")
        let log = try String(contentsOf: try XCTUnwrap(daemonLogs.first), encoding: .utf8)
        XCTAssertEqual(log.components(separatedBy: "Box refused the name").count - 1, 2, log)
    }

    func testNamesLongerThan255BytesAreENAMETOOLONG() async throws {
        let mount = try await startAndMount()
        let before = try lastSequence(try XCTUnwrap(boxsim))
        let tooLong = [String(repeating: "a", count: 252) + ".txt",  // 256 bytes
                       String(repeating: "é", count: 126) + ".txt"]  // 256 bytes in only 130 characters
        for name in tooLong {
            XCTAssertEqual(name.utf8.count, 256)
            try fail(["touch", mount.path(name)], with: "File name too long")
            try fail(["mkdir", mount.path(name)], with: "File name too long")
        }
        XCTAssertTrue(try requests().after(before).writes.isEmpty)

        let longest = String(repeating: "b", count: 251) + ".txt"  // 255 bytes: allowed
        try write("just fits\n", to: mount.path(longest))
        try await waitForBox(longest, text: "just fits\n")
        XCTAssertEqual(try boxNames(in: ""), [longest])
    }

    func testALookupOfANameLongerThan255BytesIsENAMETOOLONG() async throws {
        let mount = try await startAndMount(texts: ["ok.txt": "ok\n"])
        let tooLong = String(repeating: "a", count: 252) + ".txt"  // 256 bytes
        try fail(["stat", mount.path(tooLong)], with: "File name too long")
        try fail(["cat", mount.path(tooLong)], with: "File name too long")
        try fail(["rm", mount.path(tooLong)], with: "File name too long")
        try fail(["stat", mount.path(String(repeating: "b", count: 251) + ".txt")], with: "No such file or directory")
    }

    func testANameDifferingOnlyInCaseFromAnExistingOneIsEEXIST() async throws {
        let mount = try await startAndMount(texts: ["a.txt": "lower case\n", "Docs/.keep": ""])
        let before = try lastSequence(try XCTUnwrap(boxsim))
        try fail(["mkdir", mount.path("docs")], with: "File exists")
        try fail(["touch", mount.path("A.txt")], with: "File exists")
        try fail(["mkdir", mount.path("A.TXT")], with: "File exists")
        let log = try requests().after(before)
        XCTAssertTrue(log.writes.isEmpty, log.summary)
        XCTAssertEqual(try boxNames(in: ""), ["Docs", "a.txt"])
        XCTAssertEqual(try api.text(of: try XCTUnwrap(try api.entry(at: "a.txt")).id), "lower case\n")
    }

    func testUnusualButValidNamesReachBoxExactly() async throws {
        let mount = try await startAndMount()
        let names = [" leading space.txt", "émoji 🎉 ünïcødé.txt", "semi;colon & amp.txt",
                     "quote's \"double\".txt",
                     ".hidden", "percent%20hash#.txt", "end.with.dots..."]
        for name in names { try write("I am \(name)\n", to: mount.path(name)) }
        for name in names { try await waitForBox(name, text: "I am \(name)\n") }
        XCTAssertEqual(try boxNames(in: ""), names.sorted())
        let listed = try succeed(["ls", "-A", mount.mountpoint.path]).split(separator: "\n").map(String.init)
        XCTAssertEqual(listed.sorted(), names.sorted())
    }
}
