import BoxTestSupport
import Foundation
import XCTest

/// POSIX details the usual test suites check: a file unlinked while open, access times apart from
/// modification times, and a folder's times moving when its entries change.
final class PosixDetailTests: WriteTestCase {
    func testANewFileUnlinkedWhileOpenKeepsItsContentAndNeverReachesBox() async throws {
        let mount = try await startAndMount(texts: ["other.txt": "other\n"])
        let before = try lastSequence(try XCTUnwrap(boxsim))
        let script = """
            f = open('doomed.txt', 'w+')
            f.write('written before the unlink\\n'); f.flush()
            os.unlink('doomed.txt')
            print(os.fstat(f.fileno()).st_nlink, os.fstat(f.fileno()).st_size)
            f.write('and after\\n'); f.flush()
            f.seek(0); print(f.read(), end='')
            print(os.fstat(f.fileno()).st_size, os.path.exists('doomed.txt'))
            f.close()
            """
        XCTAssertEqual(try python(script, in: mount), "0 26\nwritten before the unlink\nand after\n36 False\n")
        // Closed with write_back_delay=0: an upload would start at once. Give it time to show.
        try await Task.sleep(for: .seconds(2))
        let log = try requests().after(before)
        XCTAssertFalse(log.contains { $0.method == "POST" && $0.path.contains("/files/content") }, log.summary)
        XCTAssertEqual(try boxNames(in: ""), ["other.txt"])
    }

    func testABoxFileOpenForReadingThenUnlinkedStaysReadableFromItsDescriptor() async throws {
        let mount = try await startAndMount(largeFiles: ["big.bin": 3 << 20])
        let expected = try sha1(try localCopyOfSeededFile(size: 3 << 20).path)
        let script = """
            import hashlib
            f = open('big.bin', 'rb')
            os.unlink('big.bin')
            print(os.fstat(f.fileno()).st_nlink, os.fstat(f.fileno()).st_size, os.path.exists('big.bin'))
            print(hashlib.sha1(f.read()).hexdigest())
            f.close()
            """
        XCTAssertEqual(try python(script, in: mount), "0 \(3 << 20) False\n\(expected)\n")
        XCTAssertEqual(try boxNames(in: ""), [], "unlink removed it from Box")
    }

    func testAccessTimesAreKeptApartFromModificationTimes() async throws {
        let mount = try await startAndMount(texts: ["a.txt": "a\n", "dir/.keep": ""])
        let modified = try succeed(["stat", "-c", "%Y", mount.path("a.txt")])
        try succeed(["touch", "-a", "-d", "@1000000000", mount.path("a.txt")])
        XCTAssertEqual(try succeed(["stat", "-c", "%X %Y", mount.path("a.txt")]), "1000000000 \(modified)")
        try succeed(["touch", "-m", "-d", "@1500000000", mount.path("a.txt")])
        XCTAssertEqual(try succeed(["stat", "-c", "%X %Y", mount.path("a.txt")]), "1000000000 1500000000\n")
        let script = """
            os.utime('a.txt', ns=(1200000000_250000000, 1300000000_500000000))
            os.utime('dir', (1100000000, 1100000000))
            st = os.stat('a.txt'); print(st.st_atime_ns, st.st_mtime_ns, int(os.stat('dir').st_atime))
            """
        XCTAssertEqual(try python(script, in: mount), "1200000000250000000 1300000000500000000 1100000000\n")
        // The mtime goes to Box; the access time is the mount's alone.
        let api = try self.api
        try await Poll.until("the new mtime on Box", timeout: 60) {
            try api.entry(at: "a.txt")?.contentModifiedEpoch == 1_300_000_000 ? true : nil
        }
    }

    func testAFoldersModificationAndChangeTimesMoveWhenItsEntriesChange() async throws {
        let mount = try await startAndMount(texts: ["dir/old.txt": "old\n", "other/.keep": ""])
        func times(_ folder: String) throws -> (Double, Double) {
            let parts = try succeed(["stat", "-c", "%.9Y %.9Z", mount.path(folder)]).split(separator: " ")
            return (Double(parts[0]) ?? 0, Double(parts[1].trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0)
        }
        var last = try times("dir")
        let steps: [[String]] = [
            ["touch", mount.path("dir/new.txt")], ["mkdir", mount.path("dir/sub")],
            ["mv", mount.path("dir/new.txt"), mount.path("dir/renamed.txt")], ["rm", mount.path("dir/renamed.txt")],
            ["rmdir", mount.path("dir/sub")], ["mv", mount.path("dir/old.txt"), mount.path("other/old.txt")],
        ]
        for step in steps {
            try await Task.sleep(for: .milliseconds(20))
            try succeed(step)
            let now = try times("dir")
            XCTAssertGreaterThan(now.0, last.0, "mtime after \(step.joined(separator: " "))")
            XCTAssertGreaterThan(now.1, last.1, "ctime after \(step.joined(separator: " "))")
            last = now
        }
        XCTAssertGreaterThanOrEqual(try times("other").0, last.0, "the target folder of a move changed too")
    }
}
