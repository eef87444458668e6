import BoxTestSupport
import Foundation
import XCTest

extension WriteRaceTests {
    func testAnEditorSaveWhileALargeSaveCommitsBecomesTheNextVersion() async throws {
        let mount = try await startAndMount(largeFiles: ["big.bin": 21 << 20], options: ["write_back_delay=3"])
        let api = try self.api
        let original = try XCTUnwrap(try api.entry(at: "big.bin"))
        // Box takes a second over the commit of the next chunked upload: it is stored while the mount waits.
        let held = try api.addFault(["path_prefix": "/api/2.0/files/upload_sessions/", "method": "POST",
                                     "latency_ms": 1000, "count": 1])
        let next = try localFile(size: 21 << 20, seed: 95)
        try succeed(["cp", next.path, mount.path("big.bin")])
        try await waitUntilUsed(fault: held, timeout: 60)
        let save = "printf 'small\\n' > \"$DIR/.big.swp\" && mv -f \"$DIR/.big.swp\" \"$DIR/big.bin\""
        XCTAssertEqual(try Shell.bash(save, environment: ["DIR": mount.mountpoint.path]).status, 0)
        try await Poll.until("the save to be sent", timeout: 60) {
            try self.requests().matching("POST", UploadPaths.newVersion(original.id)).isEmpty ? nil : true
        }
        try await waitUntilSettled(mount)
        XCTAssertEqual(try api.file(original.id).sha1, try sha1(of: "small\n"), "big.bin holds the last save")
        XCTAssertEqual(try boxNames(in: ""), ["big.bin"])
    }
}
