import Foundation

/// The `Retry-After` header: delay-seconds or an HTTP-date (RFC 9110 §10.2.3), as seconds from now,
/// at most `maximum`: every sleep in the client can take the answer (a wait of 1e300 s would trap).
public enum RetryAfter {
    /// The longest wait a `Retry-After` asks for that is taken as it is (a day).
    public static let maximum: Double = 86_400

    public static func seconds(from value: String, now: Date = Date()) -> Double? {
        let text = value.trimmingCharacters(in: .whitespaces)
        // delay-seconds is digits (a fraction or a minus, meaning now, is tolerated); not Double's
        // "nan", "inf" or "0x1p3".
        let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        if !digits.isEmpty, digits.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let seconds = Double(text) {
            return min(max(0, seconds), maximum)
        }
        guard let date = httpDate(text) else { return nil }
        return min(max(0, date.timeIntervalSince(now)), maximum)
    }

    /// The header of `response`, if it has a usable one.
    public static func seconds(of response: HTTPResponse, now: Date = Date()) -> Double? {
        response.headers["Retry-After"].flatMap { seconds(from: $0, now: now) }
    }

    /// IMF-fixdate, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
    static func httpDate(_ text: String) -> Date? {
        let parts = text.split(separator: " ")
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard parts.count == 6, parts[5] == "GMT", let day = Int(parts[1]),
            let month = months.firstIndex(of: String(parts[2])), let year = Int(parts[3])
        else { return nil }
        let time = parts[4].split(separator: ":").compactMap { Int($0) }
        guard time.count == 3 else { return nil }
        var components = DateComponents()
        components.year = year
        components.month = month + 1
        components.day = day
        components.hour = time[0]
        components.minute = time[1]
        components.second = time[2]
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "GMT")!
        return calendar.date(from: components)
    }
}
