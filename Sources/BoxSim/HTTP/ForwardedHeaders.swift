import Foundation
import HTTPTypes
import Hummingbird

/// Scheme and host the client used, as a proxy in front of boxsim reports them. RFC 7239 `Forwarded`
/// (`proto=`, `host=` of its first element: the one the first proxy added, closest to the client) wins;
/// then `X-Forwarded-Proto` / `X-Forwarded-Host` (first value of a list); then the `Host` header and the
/// listener's own scheme (boxsim listens on plain HTTP). Values that are not a plain `http`/`https` scheme
/// or a host name with an optional port are ignored, so a header cannot put a path or a second URL into
/// the answers.
enum ForwardedHeaders {
    static let forwarded = HTTPField.Name("forwarded")!
    static let forwardedProto = HTTPField.Name("x-forwarded-proto")!
    static let forwardedHost = HTTPField.Name("x-forwarded-host")!

    static func base(of request: Request) -> String {
        let element: [String: String] = request.headers[forwarded].map(firstElement) ?? [:]
        let schemes: [String?] = [element["proto"], firstValue(request.headers[forwardedProto])]
        let scheme = schemes.compactMap { $0?.lowercased() }.first { $0 == "http" || $0 == "https" } ?? "http"
        let hosts: [String?] = [element["host"], firstValue(request.headers[forwardedHost]), request.head.authority]
        let host = hosts.compactMap { $0 }.first(where: isHost) ?? "127.0.0.1"
        return scheme + "://" + host
    }

    /// The parameters of the first element of a `Forwarded` value (`for=a;proto=https;host=h, for=b`),
    /// names lower-cased, quoted values unquoted.
    static func firstElement(_ value: String) -> [String: String] {
        var parameters: [String: String] = [:]
        var inQuotes = false
        var end = value.endIndex
        for index in value.indices {
            if value[index] == "\"" { inQuotes.toggle() }
            if value[index] == ",", !inQuotes { end = index; break }
        }
        for pair in value[..<end].split(separator: ";") {
            guard let equals = pair.firstIndex(of: "=") else { continue }
            let name = pair[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            var text = pair[pair.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") { text = String(text.dropFirst().dropLast()) }
            if parameters[name] == nil { parameters[name] = text }
        }
        return parameters
    }

    static func firstValue(_ header: String?) -> String? {
        guard let first = header?.split(separator: ",").first else { return nil }
        return first.trimmingCharacters(in: .whitespaces)
    }

    /// A host name, IPv4 address or bracketed IPv6 address, with an optional port.
    static func isHost(_ text: String) -> Bool {
        guard !text.isEmpty, text.count <= 255 else { return false }
        return text.unicodeScalars.allSatisfy { scalar in
            scalar.properties.isAlphabetic && scalar.isASCII || ("0"..."9").contains(scalar)
                || ".-_:[]".unicodeScalars.contains(scalar)
        }
    }
}
