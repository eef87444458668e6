import BoxTestSupport
import Foundation
import XCTest

/// Several writers at once, each on its own file: every file arrives byte-exact and reads back the same.
final class ConcurrentWriteTests: WriteTestCase {
    func testParallelCopiesOfDifferentFilesAllArriveByteExact() async throws {
        let local = try makeTemporaryDirectory("parallel")
        for index in 1...8 {
            try SeedTree.writePatternFile(at: local.appendingPathComponent("part-\(index).bin"),
                                          size: index * 700_000 + index, seed: UInt64(100 + index))
        }
        try SeedTree.writePatternFile(at: local.appendingPathComponent("large.bin"), size: 24 << 20, seed: 109)
        let expected = try TreeManifest.local(local)
        let mount = try await startAndMount()
        try succeed(["mkdir", mount.path("parallel")])

        let copies = "for f in \"$SRC\"/*; do cp \"$f\" \"$DEST/\" & done; wait"
        let result = try Shell.bash(copies, environment: ["SRC": local.path, "DEST": mount.path("parallel")])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try TreeManifest.local(mount.mountpoint.appendingPathComponent("parallel")), expected,
                       "each writer reads its own bytes")
        let api = try self.api
        try await Poll.until("Box to hold every file", timeout: 180, interval: 0.5) {
            try TreeManifest.box(api, folder: "parallel") == expected ? true : nil
        }
    }

    func testParallelAppendersToDifferentFilesKeepEveryLine() async throws {
        let mount = try await startAndMount(options: ["write_back_delay=1"])
        let local = try makeTemporaryDirectory("appends")
        // Six writers, each appending 150 lines to its own file, one open/append/close per line; some of those
        // closes land while the previous content of the same file is being uploaded.
        let appenders = "mkdir -p \"$DIR\" && for w in 1 2 3 4 5 6; do "
            + "( for i in $(seq 1 150); do "
            + "echo \"writer $w line $i $(printf '%*s' $((i % 40)) '')\" >> \"$DIR/log-$w.txt\"; "
            + "done ) & done; wait"
        for directory in [local.path, mount.path("logs")] {
            let result = try Shell.bash(appenders, environment: ["DIR": directory])
            XCTAssertEqual(result.status, 0, result.stderr)
        }
        let expected = try TreeManifest.local(local)
        XCTAssertEqual(try TreeManifest.local(mount.mountpoint.appendingPathComponent("logs")), expected)
        let api = try self.api
        try await Poll.until("Box to hold every line", timeout: 120, interval: 0.5) {
            try TreeManifest.box(api, folder: "logs") == expected ? true : nil
        }
    }
}
