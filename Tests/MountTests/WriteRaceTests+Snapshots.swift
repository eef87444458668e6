import BoxTestSupport
import Foundation
import XCTest

/// A folder read from a snapshot (`opendir`) taken before a new file's first upload landed.
extension WriteRaceTests {
    /// Defect (seed 14168 of the reference-model tier): a snapshot names a new file by its made-up id. Once its
    /// upload had landed and its local copy was dropped, readdirplus from that snapshot, while the folder's
    /// listing was dropped (an event, `boxfs refresh`) and not yet fetched again, made a second inode of the
    /// made-up id. The kernel took it for the name, and the next open of the file failed with `ENOENT`.
    func testAFolderReadFromASnapshotTakenBeforeANewFilesUploadLandedStillOpensTheFile() async throws {
        let mount = try await startAndMount(texts: ["dir/a.txt": "a\n"], options: [
            "events=off", "dir_cache_ttl=600", "entry_timeout=60", "attr_timeout=60"])
        XCTAssertEqual(try succeed(["ls", mount.path("dir")]), "a.txt\n")
        let folder = try XCTUnwrap(try api.entry(at: "dir"))
        try await writeNewFile("new\n", to: "dir/new.txt", in: mount, holdingItsUploadFor: 1000)
        // The snapshot is taken while the upload is on the wire: it names the file by its made-up id.
        let directory = try XCTUnwrap(opendir(mount.path("dir")), "opendir: errno \(errno)")
        defer { closedir(directory) }
        try await waitForBox("dir/new.txt", text: "new\n")
        try await waitUntilSettled(mount)

        let names = try await readWhileTheListingIsDropped(directory, folderID: folder.id, in: mount, path: "dir")
        XCTAssertEqual(names.sorted(), ["a.txt", "new.txt"])
        XCTAssertEqual(try succeed(["cat", mount.path("dir/new.txt")]), "new\n")
    }
}

extension WriteRaceTests {
    /// Defect (model seed 22069): a snapshot taken before a rename still held the old name. Read after the folder's
    /// listing was dropped (an event, `boxfs refresh`), readdirplus linked the old name to the renamed file's
    /// node: `open(O_CREAT)` of the old name then opened the renamed file (its writes would have gone into it), and
    /// no file of the old name was made.
    func testAFolderReadFromASnapshotTakenBeforeARenameDoesNotLinkTheOldName() async throws {
        let mount = try await startAndMount(texts: ["dir/a.txt": "a\n"], options: [
            "events=off", "dir_cache_ttl=600", "entry_timeout=60", "attr_timeout=60"])
        XCTAssertEqual(try succeed(["ls", mount.path("dir")]), "a.txt\n")
        let folder = try XCTUnwrap(try api.entry(at: "dir"))
        let directory = try XCTUnwrap(opendir(mount.path("dir")), "opendir: errno \(errno)")
        defer { closedir(directory) }
        try succeed(["mv", mount.path("dir/a.txt"), mount.path("dir/b.txt")])

        let names = try await readWhileTheListingIsDropped(directory, folderID: folder.id, in: mount, path: "dir")
        XCTAssertEqual(names, ["a.txt"], "the snapshot shows what the folder held at opendir")

        // POSIX lets the old snapshot show the old name; it must not stand for the renamed file.
        try write("new a\n", to: mount.path("dir/a.txt"))
        XCTAssertEqual(try succeed(["cat", mount.path("dir/b.txt")]), "a\n", "the renamed file is untouched")
        XCTAssertEqual(try succeed(["cat", mount.path("dir/a.txt")]), "new a\n")
        XCTAssertEqual(try succeed(["ls", mount.path("dir")]), "a.txt\nb.txt\n")
        try await waitUntilSettled(mount)
        try await waitForBox("dir/b.txt", text: "a\n")
        try await waitForBox("dir/a.txt", text: "new a\n")
    }
}

extension WriteRaceTests {
    /// Reads the rest of `directory` (an open snapshot of folder `path`) while the folder's cached listing is
    /// dropped: `boxfs refresh` drops it (and tells the kernel to forget its names) and lists it again, which Box
    /// holds 3 s. Answers the names read, and returns once the refresh is done.
    func readWhileTheListingIsDropped(_ directory: OpaquePointer, folderID: String, in mount: MountFixture,
                                      path: String) async throws -> [String] {
        let listing = try api.addFault(["path_prefix": "/2.0/folders/\(folderID)/items", "method": "GET",
                                        "latency_ms": 3000, "count": 1])
        let refresh = Process()
        refresh.executableURL = try MountFixture.locateBinary()
        refresh.arguments = ["refresh", mount.path(path)]
        refresh.standardOutput = FileHandle.nullDevice
        try refresh.run()
        defer { if refresh.isRunning { refresh.terminate() } }
        try await waitUntilUsed(fault: listing)
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        XCTAssertTrue(refresh.isRunning, "read while the listing was held")
        refresh.waitUntilExit()
        XCTAssertEqual(refresh.terminationStatus, 0)
        return names
    }
}
