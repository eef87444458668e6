import Foundation

/// RFC 3339 timestamps as Box writes them (second precision, numeric offset; boxsim always uses UTC).
enum Timestamp {
    static func now() -> Int64 { Int64(Date().timeIntervalSince1970) }

    static func rfc3339(_ seconds: Int64) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))+00:00"
    }

    static func json(_ seconds: Int64?) -> JSONValue {
        seconds.map { .string(rfc3339($0)) } ?? .null
    }

    /// Parses an RFC 3339 time as clients send it (`2024-01-02T03:04:05Z`, `...+01:00`, fractional seconds).
    static func parse(_ text: String) -> Int64? {
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return Int64(date.timeIntervalSince1970) }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text).map { Int64($0.timeIntervalSince1970) }
    }
}
