import BoxAuth
import CurlHTTP
import Foundation

extension BoxAPIError {
    /// An error answer: Box's error body when there is one, the `WWW-Authenticate` challenge,
    /// `box-request-id` and `Retry-After` headers.
    init(response: HTTPResponse, request: String?) {
        let body = response.body.isEmpty ? nil : try? JSONDecoder().decode(ErrorBodyDTO.self, from: response.body)
        let challenge = response.headers["WWW-Authenticate"].flatMap { BearerChallenge(headerValue: $0) }
        self.init(
            kind: Self.kind(forStatus: response.status),
            status: response.status,
            code: body?.code ?? challenge?.error,
            message: body?.message ?? challenge?.errorDescription,
            requestID: body?.requestID ?? response.headers["box-request-id"],
            retryAfter: response.headers["Retry-After"].flatMap { RetryAfter.seconds(from: $0) },
            authError: challenge?.error,
            conflicts: body?.conflicts ?? [],
            request: request)
    }

    /// A failed transfer. The HTTP layer's text is kept, minus the URL (a pre-signed download URL
    /// is itself a credential).
    init(transport error: HTTPError, request: BoxRequest) {
        let detail = String(describing: error).replacingOccurrences(of: request.url, with: "<url>")
        self.init(kind: .transport(detail, isTransient: error.isTransient), request: request.logDescription)
    }
}

/// The `Retry-After` header: delay-seconds or an HTTP-date (RFC 9110 §10.2.3).
enum RetryAfter {
    static func seconds(from value: String, now: Date = Date()) -> Double? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(text), seconds.isFinite { return max(0, seconds) }
        guard let date = httpDate(text) else { return nil }
        return max(0, date.timeIntervalSince(now))
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
        let days = BoxDate.daysSinceEpoch(year: year, month: month + 1, day: day)
        return Date(timeIntervalSince1970: Double(days * 86_400 + time[0] * 3600 + time[1] * 60 + time[2]))
    }
}
