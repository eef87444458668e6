import BoxTestSupport
import Foundation
import XCTest

/// `boxsim serve --seed`: the imported tree lists and reads back as the local one, sparse files stay sparse
/// in the blob store, and a large seeded folder pages completely.
final class SeedTests: XCTestCase {
    func testASeededTreeListsAndReadsBackAsTheLocalTree() async throws {
        let seed = try SeedTree.make(texts: [
            "top.txt": "top\n",
            "empty.txt": "",
            "same-1.txt": "same bytes\n",
            "deep/a/b/c/leaf.txt": "leaf\n",
            "deep/a/same-2.txt": "same bytes\n",
            // Case twins (taken in name order, upper case first): the folders merge, the later file is skipped
            // (Box refuses the second name).
            "Docs/one.txt": "one\n",
            "docs/two.txt": "two\n",
            "Readme.md": "first\n",
            "README.md": "second\n",
        ], largeFiles: ["deep/big.bin": 3 * 1024 * 1024 + 17])
        defer { try? FileManager.default.removeItem(at: seed) }
        let modified = Date(timeIntervalSince1970: 1_700_000_000)
        try FileManager.default.setAttributes([.modificationDate: modified],
                                              ofItemAtPath: seed.appendingPathComponent("top.txt").path)
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("boxsim-seed-data-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let sim = try await BoxSimProcess.start(seed: seed, dataDirectory: data)
        defer { sim.stop() }

        let tree = try listTree(sim, folder: "0", path: "")
        let folders = tree.filter { $0.value.isFolder }.keys.sorted()
        XCTAssertEqual(folders, ["Docs", "deep", "deep/a", "deep/a/b", "deep/a/b/c"])
        let files = tree.filter { !$0.value.isFolder }
        XCTAssertEqual(files.keys.sorted(), ["Docs/one.txt", "Docs/two.txt", "README.md", "deep/a/b/c/leaf.txt",
                                             "deep/a/same-2.txt", "deep/big.bin", "empty.txt", "same-1.txt", "top.txt"])
        for (path, entry) in files {
            let local = seed.appendingPathComponent(path == "Docs/two.txt" ? "docs/two.txt" : path)
            let bytes = try Data(contentsOf: local)
            XCTAssertEqual(entry.size, bytes.count, path)
            XCTAssertEqual(entry.sha1, try Curl.sha1(of: local), path)
            // Through the file's version too: its `file_version` names a version row of this file.
            let version = try Curl.run(sim.baseURL + "/2.0/files/\(entry.id)/content?version=\(entry.versionID)",
                                       token: sim.developerToken, extra: ["-L"])
            XCTAssertEqual(version.status, 200, path)
            XCTAssertEqual(version.body, bytes, path)
        }
        XCTAssertEqual(files["top.txt"]?.contentModifiedAt, "2023-11-14T22:13:20+00:00")
        XCTAssertEqual(try Curl.run(sim.baseURL + "/2.0/files/\(try XCTUnwrap(files["README.md"]).id)/content",
                                    token: sim.developerToken, extra: ["-L"]).text, "second\n")
        sim.stop()

        // A second start on the same data adds only what is new and keeps the ids.
        try Data("new\n".utf8).write(to: seed.appendingPathComponent("deep/a/new.txt"))
        let again = try await BoxSimProcess.start(seed: seed, dataDirectory: data)
        defer { again.stop() }
        let after = try listTree(again, folder: "0", path: "")
        XCTAssertEqual(Set(after.keys), Set(tree.keys).union(["deep/a/new.txt"]))
        for (path, entry) in tree { XCTAssertEqual(after[path]?.id, entry.id, path) }
    }

    func testASparseSeedFileStaysSparseInTheBlobStore() async throws {
        let seed = try SeedTree.make()
        defer { try? FileManager.default.removeItem(at: seed) }
        let size: Int64 = 256 << 20
        let sparse = seed.appendingPathComponent("sparse.img")
        let start = Data(repeating: 0xA5, count: 65_536)
        let middle = Data((0..<65_536).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 1) })
        try writeSparse(sparse, size: size, extents: [(0, start), (128 << 20, middle)])
        try writeSparse(seed.appendingPathComponent("hole.img"), size: 10 << 20, extents: [])
        XCTAssertLessThan(try allocatedBytes(sparse), 1 << 20, "the local file must be sparse for this test")
        let sim = try await BoxSimProcess.start(seed: seed)
        defer { sim.stop() }

        let tree = try listTree(sim, folder: "0", path: "")
        let image = try XCTUnwrap(tree["sparse.img"])
        XCTAssertEqual(image.size, Int(size))
        XCTAssertEqual(image.sha1, try Curl.sha1(of: sparse))
        let blob = sim.dataDirectory.appendingPathComponent("blobs/\(image.sha1.prefix(2))/\(image.sha1)")
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: blob.path)[.size] as? Int64, size)
        XCTAssertLessThanOrEqual(try allocatedBytes(blob), 1 << 20, "the blob keeps the holes")
        let hole = try XCTUnwrap(tree["hole.img"])
        XCTAssertEqual(hole.size, 10 << 20)
        let holeBlob = sim.dataDirectory.appendingPathComponent("blobs/\(hole.sha1.prefix(2))/\(hole.sha1)")
        XCTAssertEqual(try allocatedBytes(holeBlob), 0)

        let url = sim.baseURL + "/2.0/files/\(image.id)/content"
        let around = try Curl.run(url, token: sim.developerToken, headers: ["Range": "bytes=65530-65541"], extra: ["-L"])
        XCTAssertEqual(around.body, start.suffix(6) + Data(count: 6))
        let inside = try Curl.run(url, token: sim.developerToken,
                                  headers: ["Range": "bytes=\((128 << 20) - 2)-\((128 << 20) + 65_537)"], extra: ["-L"])
        XCTAssertEqual(inside.body, Data(count: 2) + middle + Data(count: 2))
        let tail = try Curl.run(url, token: sim.developerToken, headers: ["Range": "bytes=-4"], extra: ["-L"])
        XCTAssertEqual(tail.body, Data(count: 4))
    }

    func testALargeSeededFolderPagesCompletelyWithEveryField() async throws {
        let fileCount = 2_345
        var texts: [String: String] = [:]
        for index in 0..<fileCount { texts["big/f\(String(format: "%05d", index)).txt"] = "\(index)\n" }
        for index in 0..<30 { texts["big/D\(String(format: "%02d", index))/inner/x.bin"] = String(repeating: "x", count: index) }
        let seed = try SeedTree.make(texts: texts)
        defer { try? FileManager.default.removeItem(at: seed) }
        let sim = try await BoxSimProcess.start(seed: seed)
        defer { sim.stop() }
        let folder = try XCTUnwrap(try listTree(sim, folder: "0", path: "", depth: 1)["big"]).id
        let expected = (0..<30).map { "D\(String(format: "%02d", $0))" } + (0..<fileCount).map { "f\(String(format: "%05d", $0)).txt" }

        let fields = "name,size,parent,path_collection,created_by,owned_by,shared_link,sha1,file_version,modified_at"
        var names: [String] = []
        var marker: String?
        var pages = 0
        repeat {
            let query = "usemarker=true&limit=1000&fields=\(fields)" + (marker.map { "&marker=\($0)" } ?? "")
            let page = try getJSON(sim, "/2.0/folders/\(folder)/items?\(query)")
            let entries = try XCTUnwrap(page["entries"] as? [[String: Any]])
            for entry in entries {
                let name = try XCTUnwrap(entry["name"] as? String)
                names.append(name)
                XCTAssertEqual((entry["parent"] as? [String: Any])?["id"] as? String, folder, name)
                let path = (entry["path_collection"] as? [String: Any])?["entries"] as? [[String: Any]]
                XCTAssertEqual(path?.compactMap { $0["id"] as? String }, ["0", folder], name)
                XCTAssertEqual((entry["owned_by"] as? [String: Any])?["login"] as? String, "admin@boxsim.example")
                XCTAssertEqual((entry["created_by"] as? [String: Any])?["login"] as? String, "admin@boxsim.example")
                XCTAssertTrue(entry["shared_link"] is NSNull, name)
                let size = (entry["size"] as? NSNumber)?.intValue
                if name.hasPrefix("D") {
                    XCTAssertEqual(size, Int(name.dropFirst()), name)
                } else {
                    XCTAssertEqual(size, "\(Int(name.dropFirst().prefix(5))!)\n".utf8.count, name)
                    XCTAssertNotNil((entry["file_version"] as? [String: Any])?["id"] as? String, name)
                }
            }
            marker = page["next_marker"] as? String
            pages += 1
        } while marker != nil && pages < 10
        XCTAssertEqual(pages, 3)
        XCTAssertEqual(names, expected)

        var offsetNames: [String] = []
        for offset in stride(from: 0, to: expected.count, by: 1000) {
            let page = try getJSON(sim, "/2.0/folders/\(folder)/items?limit=1000&offset=\(offset)&fields=name,size")
            XCTAssertEqual(page["total_count"] as? Int, expected.count)
            offsetNames += (page["entries"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        }
        XCTAssertEqual(offsetNames, expected)

        // The read-ahead and a single item's read agree (a shared link, a folder's size).
        let sub = try XCTUnwrap(try listTree(sim, folder: folder, path: "", depth: 1)["D07"])
        let shared = try Curl.run(sim.baseURL + "/2.0/folders/\(sub.id)?fields=shared_link", token: sim.developerToken,
                                  headers: ["Content-Type": "application/json"], method: "PUT", extra: ["--data-binary", #"{"shared_link":{"access":"open"}}"#])
        XCTAssertEqual(shared.status, 200, shared.text)
        let page = try getJSON(sim, "/2.0/folders/\(folder)/items?limit=10&fields=shared_link,size")
        let entry = try XCTUnwrap((page["entries"] as? [[String: Any]])?.first { $0["id"] as? String == sub.id })
        let single = try getJSON(sim, "/2.0/folders/\(sub.id)?fields=shared_link,size")
        XCTAssertEqual((entry["shared_link"] as? [String: Any])?["url"] as? String,
                       (single["shared_link"] as? [String: Any])?["url"] as? String)
        XCTAssertNotNil((entry["shared_link"] as? [String: Any])?["url"] as? String)
        XCTAssertEqual((entry["size"] as? NSNumber)?.intValue, 7)
        XCTAssertEqual((single["size"] as? NSNumber)?.intValue, 7)
    }

    // MARK: - Helpers

    struct Entry {
        var id: String
        var isFolder: Bool
        var size: Int
        var sha1: String
        var contentModifiedAt: String?
        var versionID: String
    }

    /// Every item under `folder` by slash-separated path, walked with marker paging.
    private func listTree(_ sim: BoxSimProcess, folder: String, path: String, depth: Int = 100) throws -> [String: Entry] {
        var result: [String: Entry] = [:]
        var marker: String?
        repeat {
            let query = "usemarker=true&limit=1000&fields=name,size,sha1,content_modified_at,file_version"
                + (marker.map { "&marker=\($0)" } ?? "")
            let page = try getJSON(sim, "/2.0/folders/\(folder)/items?\(query)")
            for item in page["entries"] as? [[String: Any]] ?? [] {
                let name = item["name"] as? String ?? ""
                let itemPath = path.isEmpty ? name : path + "/" + name
                let entry = Entry(id: item["id"] as? String ?? "", isFolder: item["type"] as? String == "folder",
                                  size: (item["size"] as? NSNumber)?.intValue ?? -1, sha1: item["sha1"] as? String ?? "",
                                  contentModifiedAt: item["content_modified_at"] as? String,
                                  versionID: (item["file_version"] as? [String: Any])?["id"] as? String ?? "")
                result[itemPath] = entry
                if entry.isFolder && depth > 1 {
                    result.merge(try listTree(sim, folder: entry.id, path: itemPath, depth: depth - 1)) { first, _ in first }
                }
            }
            marker = page["next_marker"] as? String
        } while marker != nil
        return result
    }

    private func getJSON(_ sim: BoxSimProcess, _ path: String) throws -> [String: Any] {
        let result = try Curl.run(sim.baseURL + path, token: sim.developerToken)
        XCTAssertEqual(result.status, 200, "GET \(path): \(result.text)")
        return try result.json()
    }

    /// A file of `size` bytes holding `extents` at their offsets and holes everywhere else.
    private func writeSparse(_ url: URL, size: Int64, extents: [(Int64, Data)]) throws {
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown) }
        defer { close(descriptor) }
        for (offset, data) in extents {
            let written = data.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, off_t(offset)) }
            XCTAssertEqual(written, data.count)
        }
        XCTAssertEqual(ftruncate(descriptor, off_t(size)), 0)
    }

    /// Bytes the file system has allocated for a file (`st_blocks` × 512).
    private func allocatedBytes(_ url: URL) throws -> Int64 {
        var info = stat()
        guard stat(url.path, &info) == 0 else { throw CocoaError(.fileReadNoSuchFile) }
        return Int64(info.st_blocks) * 512
    }
}
