import BoxTestSupport
import Foundation
import XCTest

/// Many writers under random server errors: every transient failure is retried, and nothing the mount itself
/// wrote is ever taken for someone else's change.
final class FaultSoakTests: WriteTestCase {
    /// Writers append to and rewrite their own files while `find` and `ls -l` keep listing the folder (short
    /// `dir_cache_ttl`, so listings are fetched again and again while uploads land), and boxsim answers 5 % of
    /// all requests with 500 and 2 % with 429. Nobody else touches these files: Box must end with each file's
    /// newest content under its own name, and with no conflicted copy.
    func testWritersUnderRandomFaultsMakeNoConflictedCopyAndBoxEndsWithTheNewestContent() async throws {
        // Unpaced: the writers' 640 closes in about 20 s are far past Box's 240 uploads a minute, which the mount
        // would wait out (PacingTests shows that); boxsim applies no limit here, and this test is about faults.
        let mount = try await startAndMount(texts: ["soak/.keep": ""], options: [
            "dir_cache_ttl=1", "debug", "uploads_per_minute=0", "calls_per_minute=0"])
        let api = try self.api
        let writers = 8, rounds = 80
        let expected = try makeTemporaryDirectory("soak-expected")
        try api.addFault(["error_status": 500, "error_rate": 0.05])
        try api.addFault(["error_status": 429, "error_rate": 0.02, "retry_after": 1])

        // Each writer keeps the content it managed to write in a local mirror: a failed write (which the
        // retries should make rare) changes neither the mirror nor, by definition, the promise.
        let script = """
            writer() {
              local n=$1 file="$MNT/soak/w$1.txt" mirror="$EXP/w$1.txt"
              : > "$mirror"
              for i in $(seq 1 $ROUNDS); do
                line="writer $n round $i $(head -c 24 /dev/urandom | base64)"
                if [ $((i % 5)) -eq 0 ]; then
                  { cat "$mirror"; echo "$line"; } > "$mirror.next"
                  if cat "$mirror.next" > "$file"; then mv "$mirror.next" "$mirror"; fi
                else
                  if echo "$line" >> "$file"; then echo "$line" >> "$mirror"; fi
                fi
                sleep 0.$((RANDOM % 4))
              done
            }
            for n in $(seq 1 $WRITERS); do writer $n & done
            writers=$(jobs -p)
            ( while [ ! -e "$EXP/stop" ]; do find "$MNT" -type f > /dev/null 2>&1; ls -l "$MNT/soak" > /dev/null 2>&1; done ) &
            lister=$!
            for pid in $writers; do wait $pid; done
            touch "$EXP/stop"
            wait $lister
            """
        let result = try Shell.bash(
            script, environment: ["MNT": mount.mountpoint.path, "EXP": expected.path, "ROUNDS": "\(rounds)",
                                  "WRITERS": "\(writers)"], timeout: 120)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertGreaterThan(try requests().filter { $0.status == 500 || $0.status == 429 }.count, 0, "faults hit")
        try api.clearFaults()

        try FileManager.default.removeItem(at: expected.appendingPathComponent("stop"))
        for n in 1...writers {
            let text = try String(contentsOf: expected.appendingPathComponent("w\(n).txt"), encoding: .utf8)
            XCTAssertGreaterThan(text.count, rounds * 10, "writer \(n) wrote most of its rounds")
            XCTAssertEqual(try String(contentsOfFile: mount.path("soak/w\(n).txt"), encoding: .utf8), text,
                           "the mount shows what writer \(n) wrote")
            let onBox = try await waitForBox("soak/w\(n).txt", text: text, timeout: 45)
            XCTAssertEqual(try api.text(of: onBox.id), text)
        }
        let names = try boxNames(in: "soak")
        XCTAssertEqual(names.filter { $0.contains("(conflict") }, [], "no conflicted copy: \(names)")
        XCTAssertEqual(names, [".keep"] + (1...writers).map { "w\($0).txt" }.sorted())
    }
}
