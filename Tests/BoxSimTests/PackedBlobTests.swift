import BoxTestSupport
import Foundation
import XCTest

/// Contents up to 64 KiB are stored back to back in pack files (docs/BOXSIM.md "Data directory"): seeded and
/// uploaded ones read back byte-exact, whole and by range (sendfile and the reshaped pread path), never with a
/// neighbour's bytes, through versions, copies, the trash, search and a restart; larger contents stay one file each.
final class PackedBlobTests: XCTestCase {
    static let packedLimit = 64 * 1024

    func testSeededSmallFilesArePackedAndReadBackWholeAndByRange() async throws {
        var files: [String: Data] = [
            "empty.txt": Data(),
            "same-1.txt": Data("the same bytes\n".utf8),
            "sub/same-2.txt": Data("the same bytes\n".utf8),
        ]
        for index in 0..<40 {
            files[String(format: "f%02d.txt", index)] = Data(String(repeating: "line \(index) of a small file\n",
                                                                    count: index * 7 + 1).utf8)
        }
        let seed = try SeedTree.make(files: files, largeFiles: ["limit.bin": Self.packedLimit,
                                                                "over.bin": Self.packedLimit + 1])
        defer { try? FileManager.default.removeItem(at: seed) }
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("boxsim-packed-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let sim = try await BoxSimProcess.start(seed: seed, dataDirectory: data)
        defer { sim.stop() }

        let entries = try tree(sim)
        let locals = Set(files.keys).union(["limit.bin", "over.bin"])
        XCTAssertEqual(Set(entries.keys), locals)
        for path in locals.sorted() {
            let local = try Data(contentsOf: seed.appendingPathComponent(path))
            let entry = try XCTUnwrap(entries[path])
            try checkReads(sim, fileID: entry.id, expected: local, name: path)
            let ownFile = FileManager.default.fileExists(atPath: blobFile(data, sha1: entry.sha1))
            XCTAssertEqual(ownFile, local.count > Self.packedLimit, "\(path): a blob file of its own only over 64 KiB")
        }
        // Each distinct small content once: the pack holds no duplicate of `the same bytes`.
        let distinct = Set(files.values).union([try Data(contentsOf: seed.appendingPathComponent("limit.bin"))])
        XCTAssertEqual(try packBytes(data), distinct.reduce(0) { $0 + $1.count })

        // A fault rule that reshapes the body reads with pread instead of sendfile: the same bytes.
        let shaped = try XCTUnwrap(entries["f17.txt"])
        let expected = try XCTUnwrap(files["f17.txt"])
        let rule = try Curl.run(sim.baseURL + "/_control/faults", headers: ["Content-Type": "application/json"],
                                method: "POST",
                                extra: ["--data-binary", #"{"path_prefix":"/dl/","bandwidth_bytes_per_second":1000000,"count":4}"#])
        XCTAssertEqual(rule.status, 201, rule.text)
        try checkReads(sim, fileID: shaped.id, expected: expected, name: "f17.txt (reshaped)", all: false)
        let rules = try Curl.run(sim.baseURL + "/_control/faults").json()["entries"] as? [[String: Any]]
        XCTAssertEqual((rules?.first?["count"] as? NSNumber)?.intValue, 1, "the three reads above went through the rule: \(rules ?? [])")
    }

    func testUploadedSmallFilesArePackedThroughVersionsCopiesTrashSearchAndARestart() async throws {
        let seed = try SeedTree.make(texts: ["seeded.txt": "seeded before the uploads\n"])
        defer { try? FileManager.default.removeItem(at: seed) }
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("boxsim-packed-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        var sim = try await BoxSimProcess.start(seed: seed, dataDirectory: data)
        defer { sim.stop() }

        // Two neighbours in the pack: a search of one's words must not find the other.
        let first = Data("zebra crossing\n".utf8)
        let second = Data(("quokka " + String(repeating: "q", count: 3000) + "\n").utf8)
        let firstID = try upload(sim, name: "first.txt", data: first)
        let secondID = try upload(sim, name: "second.txt", data: second)
        try checkReads(sim, fileID: firstID, expected: first, name: "first.txt")
        try checkReads(sim, fileID: secondID, expected: second, name: "second.txt")
        XCTAssertEqual(try search(sim, "quokka"), ["second.txt"])
        XCTAssertEqual(try search(sim, "zebra"), ["first.txt"])
        for content in [first, second] {
            XCTAssertFalse(FileManager.default.fileExists(atPath: blobFile(data, sha1: try sha1(content))),
                           "a small upload is packed, not a blob file of its own")
        }

        // A new version, then the old one by id, promoted, a copy, the trash and back.
        let newer = Data("zebra crossing, second version\n".utf8)
        let versionUpload = try Curl.run(sim.baseURL + "/api/2.0/files/\(firstID)/content", token: sim.developerToken,
                                         headers: ["Expect": ""], method: "POST",
                                         extra: ["--form-string", "attributes={}", "-F", "file=@\(try temporary(newer).path)"])
        XCTAssertEqual(versionUpload.status, 200, versionUpload.text)
        try checkReads(sim, fileID: firstID, expected: newer, name: "first.txt v2")
        let versions = try getJSON(sim, "/2.0/files/\(firstID)/versions")
        let old = try XCTUnwrap((versions["entries"] as? [[String: Any]])?.first?["id"] as? String)
        let oldBytes = try Curl.run(sim.baseURL + "/2.0/files/\(firstID)/content?version=\(old)",
                                    token: sim.developerToken, extra: ["-L"])
        XCTAssertEqual(oldBytes.body, first)
        let promote = try Curl.run(sim.baseURL + "/2.0/files/\(firstID)/versions/current", token: sim.developerToken,
                                   headers: ["Content-Type": "application/json"], method: "POST",
                                   extra: ["--data-binary", #"{"type":"file_version","id":"\#(old)"}"#])
        XCTAssertEqual(promote.status, 201, promote.text)
        try checkReads(sim, fileID: firstID, expected: first, name: "first.txt promoted")
        let copy = try Curl.run(sim.baseURL + "/2.0/files/\(secondID)/copy", token: sim.developerToken,
                                headers: ["Content-Type": "application/json"], method: "POST",
                                extra: ["--data-binary", #"{"parent":{"id":"0"},"name":"copy.txt"}"#])
        XCTAssertEqual(copy.status, 201, copy.text)
        let copyID = try XCTUnwrap(try copy.json()["id"] as? String)
        try checkReads(sim, fileID: copyID, expected: second, name: "copy.txt")
        XCTAssertEqual(try Curl.run(sim.baseURL + "/2.0/files/\(secondID)", token: sim.developerToken,
                                    method: "DELETE").status, 204)
        let restored = try Curl.run(sim.baseURL + "/2.0/files/\(secondID)", token: sim.developerToken,
                                    headers: ["Content-Type": "application/json"], method: "POST", extra: ["--data-binary", "{}"])
        XCTAssertEqual(restored.status, 201, restored.text)
        try checkReads(sim, fileID: secondID, expected: second, name: "second.txt restored")

        // After a restart the packs are read as before and new contents go after the old ones.
        sim.stop()
        sim = try await BoxSimProcess.start(seed: seed, dataDirectory: data)
        let before = try packBytes(data)
        let third = Data("after the restart\n".utf8)
        let thirdID = try upload(sim, name: "third.txt", data: third)
        XCTAssertEqual(try packBytes(data), before + third.count)
        for (id, bytes) in [(firstID, first), (secondID, second), (copyID, second), (thirdID, third)] {
            try checkReads(sim, fileID: id, expected: bytes, name: id)
        }
        let seeded = try XCTUnwrap((try getJSON(sim, "/2.0/folders/0/items?limit=1000")["entries"] as? [[String: Any]])?
            .first { $0["name"] as? String == "seeded.txt" }?["id"] as? String)
        try checkReads(sim, fileID: seeded, expected: Data("seeded before the uploads\n".utf8), name: "seeded.txt")
    }

    // MARK: - Helpers

    /// Whole, single ranges (inside, suffix, open-ended, first and last byte), several ranges and a range past the
    /// end: each answer holds exactly the file's bytes asked for.
    private func checkReads(_ sim: BoxSimProcess, fileID: String, expected: Data, name: String, all: Bool = true,
                            file: StaticString = #filePath, line: UInt = #line) throws {
        let url = sim.baseURL + "/2.0/files/\(fileID)/content"
        let whole = try Curl.run(url, token: sim.developerToken, extra: ["-L"])
        XCTAssertEqual(whole.status, 200, name, file: file, line: line)
        XCTAssertEqual(whole.body, expected, "\(name): whole", file: file, line: line)
        let size = expected.count
        guard size > 0 else {
            let past = try Curl.run(url, token: sim.developerToken, headers: ["Range": "bytes=0-0"], extra: ["-L"])
            XCTAssertEqual(past.status, 416, name, file: file, line: line)
            return
        }
        var ranges = [(size / 3, size / 3 + min(size, 5) - 1), (size - 1, size - 1)]
        if all { ranges += [(0, 0), (max(0, size - 7), size - 1)] }
        for (low, high) in ranges {
            let part = try Curl.run(url, token: sim.developerToken, headers: ["Range": "bytes=\(low)-\(high)"], extra: ["-L"])
            XCTAssertEqual(part.status, 206, "\(name) \(low)-\(high)", file: file, line: line)
            XCTAssertEqual(part.body, expected.subdata(in: low..<(high + 1)), "\(name) \(low)-\(high)", file: file, line: line)
        }
        guard all else { return }
        let suffix = try Curl.run(url, token: sim.developerToken, headers: ["Range": "bytes=-3"], extra: ["-L"])
        XCTAssertEqual(suffix.body, expected.suffix(3), "\(name) suffix", file: file, line: line)
        let open = try Curl.run(url, token: sim.developerToken, headers: ["Range": "bytes=\(size / 2)-"], extra: ["-L"])
        XCTAssertEqual(open.body, expected.subdata(in: (size / 2)..<size), "\(name) open-ended", file: file, line: line)
        let several = try Curl.run(url, token: sim.developerToken, headers: ["Range": "bytes=0-0,-1"], extra: ["-L"])
        XCTAssertEqual(several.status, 206, name, file: file, line: line)
        let firstPart = Data("Content-Range: bytes 0-0/\(size)\r\n\r\n".utf8) + expected.prefix(1) + Data("\r\n--".utf8)
        let lastPart = Data("Content-Range: bytes \(size - 1)-\(size - 1)/\(size)\r\n\r\n".utf8) + expected.suffix(1)
            + Data("\r\n--".utf8)
        XCTAssertTrue(several.body.range(of: firstPart) != nil && several.body.range(of: lastPart) != nil,
                      "\(name) multipart: \(several.text)", file: file, line: line)
        let past = try Curl.run(url, token: sim.developerToken, headers: ["Range": "bytes=\(size)-"], extra: ["-L"])
        XCTAssertEqual(past.status, 416, name, file: file, line: line)
        XCTAssertEqual(past.headers["content-range"], "bytes */\(size)", name, file: file, line: line)
    }

    private struct Entry {
        var id: String
        var sha1: String
    }

    /// Every file under the root by slash-separated path.
    private func tree(_ sim: BoxSimProcess, folder: String = "0", path: String = "") throws -> [String: Entry] {
        var result: [String: Entry] = [:]
        let page = try getJSON(sim, "/2.0/folders/\(folder)/items?limit=1000&fields=name,sha1")
        for item in page["entries"] as? [[String: Any]] ?? [] {
            let name = item["name"] as? String ?? ""
            let itemPath = path.isEmpty ? name : path + "/" + name
            let id = item["id"] as? String ?? ""
            if item["type"] as? String == "folder" {
                result.merge(try tree(sim, folder: id, path: itemPath)) { first, _ in first }
            } else {
                result[itemPath] = Entry(id: id, sha1: item["sha1"] as? String ?? "")
            }
        }
        return result
    }

    private func upload(_ sim: BoxSimProcess, name: String, data: Data) throws -> String {
        let local = try temporary(data)
        defer { try? FileManager.default.removeItem(at: local) }
        let answer = try Curl.run(sim.baseURL + "/api/2.0/files/content",
                                  token: sim.developerToken, headers: ["Expect": ""], method: "POST",
                                  extra: ["--form-string", #"attributes={"name":"\#(name)","parent":{"id":"0"}}"#,
                                          "-F", "file=@\(local.path)"])
        XCTAssertEqual(answer.status, 201, answer.text)
        return try XCTUnwrap((try answer.json()["entries"] as? [[String: Any]])?.first?["id"] as? String)
    }

    private func search(_ sim: BoxSimProcess, _ word: String) throws -> [String] {
        let page = try getJSON(sim, "/2.0/search?query=\(word)&content_types=file_content")
        return (page["entries"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }.sorted()
    }

    private func getJSON(_ sim: BoxSimProcess, _ path: String) throws -> [String: Any] {
        let result = try Curl.run(sim.baseURL + path, token: sim.developerToken)
        XCTAssertEqual(result.status, 200, "GET \(path): \(result.text)")
        return try result.json()
    }

    private func temporary(_ data: Data) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("packed-\(UUID().uuidString)")
        try data.write(to: url)
        return url
    }

    private func sha1(_ data: Data) throws -> String {
        let local = try temporary(data)
        defer { try? FileManager.default.removeItem(at: local) }
        return try Curl.sha1(of: local)
    }

    private func blobFile(_ data: URL, sha1: String) -> String {
        data.appendingPathComponent("blobs/\(sha1.prefix(2))/\(sha1)").path
    }

    /// The bytes in all pack files.
    private func packBytes(_ data: URL) throws -> Int {
        let packs = data.appendingPathComponent("blobs/packs")
        return try FileManager.default.contentsOfDirectory(atPath: packs.path).reduce(0) { total, name in
            let size = try FileManager.default.attributesOfItem(atPath: packs.appendingPathComponent(name).path)[.size]
            return total + ((size as? NSNumber)?.intValue ?? 0)
        }
    }
}
