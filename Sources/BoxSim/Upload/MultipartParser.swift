import Foundation

/// An incremental `multipart/form-data` parser (RFC 7578): bytes go in as they arrive, events come out.
/// Only a short tail (at most the delimiter length) is held back, so part bodies stream through without
/// being buffered whole. Used by one task at a time.
///
/// Kept rather than replaced by a multipart library: it is small, holds at most a delimiter's length
/// plus one header block, answers Box-shaped 400s through `Malformed`, and `MultipartFuzzTests` checks it
/// against generated bodies split into reads at random.
struct MultipartParser {
    enum Event: Equatable {
        /// A part begins; header names are lower-cased.
        case part(headers: [String: String])
        case body([UInt8])
        case partEnd
        /// The closing delimiter was seen.
        case end
    }

    struct Malformed: Error {
        var reason: String
    }

    private enum State { case preamble, afterDelimiter, headers, body, epilogue }

    /// `CRLF--boundary`; the stream is primed with a CRLF so the first delimiter matches too.
    private let delimiter: [UInt8]
    private var pending: [UInt8] = [13, 10]
    private var state = State.preamble
    static let maxHeaderBytes = 16 * 1024

    var isComplete: Bool { state == .epilogue }

    /// nil when the content type is not multipart or names no boundary.
    init?(contentType: String) {
        guard contentType.lowercased().hasPrefix("multipart/") else { return nil }
        var boundary: String?
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2, pair[0].lowercased() == "boundary" {
                boundary = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            }
        }
        guard let boundary, !boundary.isEmpty, boundary.utf8.count <= 200 else { return nil }
        delimiter = Array("\r\n--\(boundary)".utf8)
    }

    mutating func feed(_ bytes: some Sequence<UInt8>) throws -> [Event] {
        pending.append(contentsOf: bytes)
        var events: [Event] = []
        var cursor = 0
        scan: while true {
            switch state {
            case .preamble:
                guard let found = find(delimiter, from: cursor) else {
                    cursor = max(cursor, pending.count - (delimiter.count - 1))
                    break scan
                }
                cursor = found + delimiter.count
                state = .afterDelimiter
            case .afterDelimiter:
                guard pending.count - cursor >= 2 else { break scan }
                if pending[cursor] == UInt8(ascii: "-") && pending[cursor + 1] == UInt8(ascii: "-") {
                    events.append(.end)
                    state = .epilogue
                    continue scan
                }
                // Transport padding (spaces, tabs) may precede the CRLF.
                // The limits hold however the bytes were split into reads.
                guard let lineEnd = find([13, 10], from: cursor) else {
                    if pending.count - cursor > 1024 { throw Malformed(reason: "bad delimiter line") }
                    break scan
                }
                if lineEnd - cursor > 1024 { throw Malformed(reason: "bad delimiter line") }
                cursor = lineEnd + 2
                state = .headers
            case .headers:
                if pending.count - cursor >= 2 && pending[cursor] == 13 && pending[cursor + 1] == 10 {
                    events.append(.part(headers: [:]))
                    cursor += 2
                    state = .body
                    continue scan
                }
                guard let end = find([13, 10, 13, 10], from: cursor) else {
                    if pending.count - cursor > Self.maxHeaderBytes { throw Malformed(reason: "part headers too long") }
                    break scan
                }
                if end - cursor > Self.maxHeaderBytes { throw Malformed(reason: "part headers too long") }
                events.append(.part(headers: Self.parseHeaders(pending[cursor..<end])))
                cursor = end + 4
                state = .body
            case .body:
                if let found = find(delimiter, from: cursor) {
                    if found > cursor { events.append(.body(Array(pending[cursor..<found]))) }
                    events.append(.partEnd)
                    cursor = found + delimiter.count
                    state = .afterDelimiter
                } else {
                    let safe = pending.count - (delimiter.count - 1)
                    if safe > cursor {
                        events.append(.body(Array(pending[cursor..<safe])))
                        cursor = safe
                    }
                    break scan
                }
            case .epilogue:
                cursor = pending.count
                break scan
            }
        }
        pending.removeFirst(cursor)
        return events
    }

    /// The index of `needle` in `pending` at or after `start` (memchr for the first byte, then memcmp).
    private func find(_ needle: [UInt8], from start: Int) -> Int? {
        guard pending.count - start >= needle.count else { return nil }
        return pending.withUnsafeBytes { haystack in
            needle.withUnsafeBytes { needleBytes -> Int? in
                guard let base = haystack.baseAddress, let needleBase = needleBytes.baseAddress else { return nil }
                let last = haystack.count - needle.count
                var position = start
                while position <= last {
                    guard let hit = memchr(base + position, Int32(needle[0]), last - position + 1) else { return nil }
                    let index = base.distance(to: UnsafeRawPointer(hit))
                    if memcmp(base + index, needleBase, needle.count) == 0 { return index }
                    position = index + 1
                }
                return nil
            }
        }
    }

    static func parseHeaders(_ bytes: ArraySlice<UInt8>) -> [String: String] {
        var headers: [String: String] = [:]
        for line in String(decoding: bytes, as: UTF8.self).components(separatedBy: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()] =
                line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return headers
    }

    /// The parameters of a `Content-Disposition: form-data; name="x"; filename="y"` header (names lower-cased).
    static func dispositionParameters(_ header: String?) -> [String: String] {
        guard let header else { return [:] }
        var result: [String: String] = [:]
        for parameter in header.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { continue }
            result[pair[0].lowercased()] = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        return result
    }
}
