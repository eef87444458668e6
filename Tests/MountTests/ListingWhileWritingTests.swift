import BoxTestSupport
import Foundation
import XCTest

/// Writers and listers at once: a listing (readdirplus, `ls -l`, `find`) taken while a file grows, or
/// fetched from Box while the file's upload lands, must never hand the kernel an older size or version
/// than the mount already has. The kernel believes what readdirplus tells it: an older size there
/// makes the next `O_APPEND` write land over the last lines, and a reader stop short.
final class ListingWhileWritingTests: WriteTestCase {
    func testAppendsWhileTheFolderIsListedAreAllKept() async throws {
        let mount = try await startAndMount(options: ["write_back_delay=1"])
        let folder = mount.path("appends")
        try succeed(["mkdir", folder])
        let script = """
            ( while :; do ls -l "$D" >/dev/null 2>&1; done ) & L1=$!
            ( while :; do find "$D" -type f >/dev/null 2>&1; done ) & L2=$!
            for i in $(seq -w 1 400); do echo "line $i $(printf 'x%.0s' $(seq 1 45))" >> "$D/log.txt"; done
            kill -9 $L1 $L2; wait $L1 $L2 2>/dev/null
            wc -l < "$D/log.txt"
            """
        let result = try Shell.bash(script, environment: ["D": folder], timeout: 300)
        XCTAssertEqual(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "400",
                       "every appended line is in the file the mount shows")
        var expected = ""
        for i in 1...400 { expected += "line \(String(format: "%03d", i)) \(String(repeating: "x", count: 45))\n" }
        XCTAssertEqual(try String(contentsOfFile: folder + "/log.txt", encoding: .utf8), expected)
        try await waitForBox("appends/log.txt", text: expected, timeout: 120)
    }

    func testAFileJustWrittenReadsBackWholeWhileFindWalksTheFolder() async throws {
        let mount = try await startAndMount()
        let folder = mount.path("copies")
        try succeed(["mkdir", folder])
        let source = try localFile(size: 2_100_000, seed: 7)
        let small = try localFile(size: 600_000, seed: 8, name: "small.bin")
        // Each round writes a new file and a new version of an existing one, and reads both back at once,
        // while `find` and `ls -l` walk the folder (and so refresh its listing) as fast as they can.
        let script = """
            ( while :; do find "$D" -type f -size +0 >/dev/null 2>&1; done ) & L1=$!
            ( while :; do ls -l "$D" >/dev/null 2>&1; done ) & L2=$!
            bad=0
            for i in $(seq 1 25); do
              cp "$SRC" "$D/copy-$i.bin"
              cmp -s "$SRC" "$D/copy-$i.bin" || { echo "copy-$i differs: $(stat -c %s "$D/copy-$i.bin")"; bad=$((bad+1)); }
              cp "$SMALL" "$D/small.bin"
              [ "$(stat -c %s "$D/small.bin")" = 600000 ] || { echo "small.bin has size $(stat -c %s "$D/small.bin")"; bad=$((bad+1)); }
              cmp -s "$SMALL" "$D/small.bin" || { echo "small.bin differs in round $i"; bad=$((bad+1)); }
              sleep 0.$((i % 3))
            done
            kill -9 $L1 $L2; wait $L1 $L2 2>/dev/null
            echo "bad=$bad"
            """
        let result = try Shell.bash(script, environment: ["D": folder, "SRC": source.path, "SMALL": small.path], timeout: 600)
        XCTAssertTrue(result.stdout.hasSuffix("bad=0\n"), result.stdout + result.stderr)
        // Once the uploads are on Box, listings from Box agree with what was written.
        let api = try self.api
        try await Poll.until("Box to hold every copy", timeout: 120, interval: 0.5) {
            let manifest = try TreeManifest.box(api, folder: "copies") ?? [:]
            return manifest.count == 26 ? true : nil
        }
        let after = try Shell.bash(
            "for f in \"$D\"/copy-*.bin; do cmp -s \"$SRC\" \"$f\" || echo \"$f differs\"; done; stat -c %s \"$D/small.bin\"",
            environment: ["D": folder, "SRC": source.path])
        XCTAssertEqual(after.stdout, "600000\n", after.stderr)
    }
}
