import Foundation
import Synchronization

/// One request as recorded in `DIR/requests.jsonl`.
struct RequestLogEntry: Sendable {
    var time: Int64
    var method: String
    var path: String
    var query: String?
    var status: Int
    var bytesSent: Int64
    var authorization: Bool
    /// Whether a `BoxApi` (shared link) header was present (never its value: it may hold a password).
    var boxAPI: Bool = false
    var asUser: String?
    var range: String?
    var userID: Int64?
    /// The `Content-Range` header (upload-session part PUTs send one).
    var contentRange: String?
    /// The `grant_type` of an `/oauth2/token` request.
    var grantType: String?
    /// Injected faults that changed the outcome (`cut_request_body`, `stall`, `corrupt`, ...), comma-separated.
    var fault: String?

    func json(seq: Int64) -> JSONValue {
        .object([
            ("seq", .int(seq)), ("time", .string(Timestamp.rfc3339(time))), ("method", .string(method)),
            ("path", .string(path)), ("query", .string(query)), ("status", .int(Int64(status))),
            ("bytes_sent", .int(bytesSent)), ("authorization", .bool(authorization)), ("boxapi", .bool(boxAPI)),
            ("as_user", .string(asUser)),
            ("range", .string(range)), ("user_id", .string(userID.map(String.init))),
            ("content_range", .string(contentRange)), ("grant_type", .string(grantType)),
            ("fault", .string(fault)),
        ])
    }
}

/// Appends request records to a JSON-lines file, one `write(2)` per line (O_APPEND), so readers see whole lines.
/// The descriptor and sequence counter are guarded by the mutex.
final class RequestLog: Sendable {
    let path: String
    private let state: Mutex<(descriptor: Int32, nextSeq: Int64)>

    init(path: String) throws {
        self.path = path
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw BlobStoreError.cannotOpen(path, errno) }
        let existingLines = (try? Data(contentsOf: URL(fileURLWithPath: path)))?.reduce(0) { $1 == 10 ? $0 + 1 : $0 }
        state = Mutex((descriptor, Int64(existingLines ?? 0) + 1))
    }

    deinit {
        state.withLock { _ = close($0.descriptor) }
    }

    func append(_ entry: RequestLogEntry) {
        state.withLock { state in
            let line = entry.json(seq: state.nextSeq).serialized() + "\n"
            state.nextSeq += 1
            var bytes = Array(line.utf8)
            _ = bytes.withUnsafeMutableBytes { Foundation.write(state.descriptor, $0.baseAddress, $0.count) }
        }
    }

    /// Every recorded line, as a JSON array text.
    func readAllAsJSONArray() -> String {
        state.withLock { _ in
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            let lines = text.split(separator: "\n", omittingEmptySubsequences: true)
            return "[" + lines.joined(separator: ",") + "]"
        }
    }

    func clear() {
        state.withLock { _ = ftruncate($0.descriptor, 0) }
    }
}
