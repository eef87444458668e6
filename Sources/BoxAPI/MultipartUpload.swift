import CurlHTTP
import Foundation

/// The `multipart/form-data` body of a direct upload: the `attributes` JSON part first (Box answers
/// 400 `metadata_after_file_contents` otherwise), then the `file` part streamed from a local file
/// with `HTTPBody.file`, so the content is never loaded into memory.
struct MultipartUpload {
    let boundary: String
    let body: HTTPBody

    /// `attributes` is the JSON of the first part; `fileName` goes into the file part's
    /// `Content-Disposition` (Box takes the name from `attributes`).
    init(attributes: [String: Any], filePath: String, fileSize: Int64, fileName: String) {
        boundary = "boxfs-" + UUID().uuidString
        let json = (try? JSONSerialization.data(withJSONObject: attributes, options: [.sortedKeys])) ?? Data("{}".utf8)
        var head = Data()
        head.append("--\(boundary)\r\n")
        head.append("Content-Disposition: form-data; name=\"attributes\"\r\n")
        head.append("Content-Type: application/json\r\n\r\n")
        head.append(json)
        head.append("\r\n--\(boundary)\r\n")
        head.append("Content-Disposition: form-data; name=\"file\"; filename=\"\(Self.quoted(fileName))\"\r\n")
        head.append("Content-Type: application/octet-stream\r\n\r\n")
        var tail = Data()
        tail.append("\r\n--\(boundary)--\r\n")
        body = .concatenation([.data(head), .file(path: filePath, offset: 0, length: fileSize), .data(tail)])
    }

    var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    /// A header parameter value: quotes, backslashes and line breaks replaced, non-ASCII kept as UTF-8
    /// (the authoritative name is in the JSON part).
    private static func quoted(_ name: String) -> String {
        String(name.map { "\"\\\r\n".contains($0) ? "_" : $0 })
    }
}

extension Data {
    fileprivate mutating func append(_ text: String) {
        append(contentsOf: Array(text.utf8))
    }
}
