import Foundation
import Hummingbird

/// `application/x-www-form-urlencoded` parsing (also used for queries).
enum FormBody {
    static func parse(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = decode(String(parts[0]))
            let value = parts.count > 1 ? decode(String(parts[1])) : ""
            if result[key] == nil { result[key] = value }
        }
        return result
    }

    static func decode(_ text: String) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    /// Reads and parses a small form body.
    static func read(_ request: Request, limit: Int = 1 << 20) async throws -> [String: String] {
        let buffer = try await request.body.collect(upTo: limit)
        return parse(String(buffer: buffer))
    }

    static func encode(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }
}
