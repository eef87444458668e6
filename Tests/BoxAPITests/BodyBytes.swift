import CurlHTTP
import Foundation

@testable import BoxAPI

/// The bytes a request body would put on the wire (file pieces read from disk), for assertions.
func bodyBytes(_ body: HTTPBody) throws -> Data {
    switch body {
    case .empty: return Data()
    case .data(let data): return data
    case .file(let path, let offset, let length):
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(offset))
        return try handle.read(upToCount: Int(length)) ?? Data()
    case .concatenation(let parts):
        return try parts.reduce(into: Data()) { $0 += try bodyBytes($1) }
    }
}

/// A temp file with `data`, removed by the caller.
func temporaryFile(_ data: Data) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("boxapi-test-\(UUID().uuidString)")
    try data.write(to: url)
    return url
}

/// A `Files` answer with one file.
func filesJSON(id: String, name: String, size: Int, sha1: String, etag: String = "1") -> String {
    #"{"total_count":1,"entries":[{"type":"file","id":"\#(id)","name":"\#(name)","size":\#(size),"#
        + #""sha1":"\#(sha1)","etag":"\#(etag)","file_version":{"type":"file_version","id":"v\#(etag)"}}]}"#
}
