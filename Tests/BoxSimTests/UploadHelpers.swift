import Foundation
import XCTest

/// Local files to upload.
enum UploadFiles {
    /// A temp file of random bytes.
    static func random(size: Int) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("upload-\(UUID().uuidString)")
        var generator = SystemRandomNumberGenerator()
        var data = Data(capacity: size)
        var remaining = size
        while remaining > 0 {
            var word = generator.next()
            let count = min(8, remaining)
            withUnsafeBytes(of: &word) { data.append(contentsOf: $0.prefix(count)) }
            remaining -= count
        }
        try data.write(to: url)
        return url
    }

    /// A temp file of zeros made with `truncate` (sparse: fast to make, read as zeros).
    static func sparse(size: Int) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sparse-\(UUID().uuidString)")
        _ = try Curl.runProcess("/usr/bin/truncate", ["-s", String(size), url.path])
        return url
    }

    /// A temp file holding `bytes[range]` of another file.
    static func slice(of file: URL, offset: Int, length: Int) throws -> URL {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(offset))
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("part-\(UUID().uuidString)")
        try (handle.readData(ofLength: length)).write(to: url)
        return url
    }
}

extension SimFixture {
    /// Bytes of all seeded files (the admin's `space_used` before any upload).
    var seedBytes: Int {
        let keys: Set<URLResourceKey> = [.fileSizeKey, .isRegularFileKey]
        let enumerator = FileManager.default.enumerator(at: seed, includingPropertiesForKeys: Array(keys))
        var total = 0
        while let url = enumerator?.nextObject() as? URL {
            guard let values = try? url.resourceValues(forKeys: keys), values.isRegularFile == true else { continue }
            total += values.fileSize ?? 0
        }
        return total
    }

    /// A multipart upload with curl: `attributes` (JSON) then the file part, unless `attributesLast`.
    func upload(path: String = "/api/2.0/files/content", attributes: [String: Any], file: URL,
                headers: [String: String] = [:], chunked: Bool = false, partName: String = "file",
                filename: String = "", attributesLast: Bool = false, token: String? = nil) throws -> CurlResult {
        let json = String(decoding: try JSONSerialization.data(withJSONObject: attributes), as: UTF8.self)
        let attributesPart = ["--form-string", "attributes=\(json)"]
        let filePart = ["-F", "\(partName)=@\(file.path);filename=\"\(filename)\""]
        var allHeaders = headers
        allHeaders["Expect"] = ""
        if chunked { allHeaders["Transfer-Encoding"] = "chunked" }
        return try Curl.run(sim.baseURL + path, token: token ?? sim.developerToken, headers: allHeaders, method: "POST",
                            extra: attributesLast ? filePart + attributesPart : attributesPart + filePart)
    }
}

/// `Digest` header values as Box wants them: base64 of the raw SHA-1.
enum UploadDigest {
    static func base64SHA1(of file: URL) throws -> String {
        let hex = Array(try Curl.sha1(of: file))
        var bytes = Data()
        var index = 0
        while index + 1 < hex.count {
            bytes.append(UInt8(String(hex[index...index + 1]), radix: 16) ?? 0)
            index += 2
        }
        return bytes.base64EncodedString()
    }
}

extension SimFixture {
    /// Creates an upload session (201 expected) and returns it.
    func createSession(_ body: [String: Any], path: String = "/api/2.0/files/upload_sessions") throws -> [String: Any] {
        let result = try postJSON(path, body, token: sim.developerToken)
        XCTAssertEqual(result.status, 201, result.text)
        return try result.json()
    }

    /// PUTs `length` bytes (default: one 8 MiB part or what is left) of `file` from `offset` to a session,
    /// with `Content-Range` and `Digest` (the right one unless `digest` is given).
    func putPart(_ url: String, file: URL, offset: Int, length: Int? = nil, total: Int, digest: String? = nil) throws
        -> CurlResult {
        let size = length ?? min(8_388_608, total - offset)
        let slice = try UploadFiles.slice(of: file, offset: offset, length: size)
        defer { try? FileManager.default.removeItem(at: slice) }
        let header = try digest ?? "SHA=" + UploadDigest.base64SHA1(of: slice)
        return try Curl.run(url, token: sim.developerToken,
                            headers: ["Digest": header, "Content-Range": "bytes \(offset)-\(offset + size - 1)/\(total)",
                                      "Content-Type": "application/octet-stream", "Expect": ""],
                            method: "PUT", extra: ["--data-binary", "@\(slice.path)"])
    }

    /// POSTs a commit with the whole-file digest.
    func commit(_ path: String, body: [String: Any], digest: String) throws -> CurlResult {
        let data = try JSONSerialization.data(withJSONObject: body)
        return try Curl.run(sim.baseURL + path, token: sim.developerToken,
                            headers: ["Digest": "sha=\(digest)", "Content-Type": "application/json"],
                            method: "POST", extra: ["--data-binary", String(decoding: data, as: UTF8.self)])
    }
}
