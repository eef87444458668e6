import Foundation

/// Decoding helpers for the places where Box's JSON varies in practice.
extension KeyedDecodingContainer {
    /// Box ids are strings; accept a bare integer too. Never empty.
    func decodeID(forKey key: Key) throws -> String {
        if let text = try? decode(String.self, forKey: key) {
            guard !text.isEmpty else {
                throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "an id is never empty")
            }
            return text
        }
        if let number = try? decode(Int64.self, forKey: key) { return String(number) }
        throw DecodingError.typeMismatch(
            String.self,
            .init(codingPath: codingPath + [key], debugDescription: "expected an id (string or integer)"))
    }

    /// `decodeID`, or nil when the key is absent or null.
    func decodeIDIfPresent(forKey key: Key) throws -> String? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        return try decodeID(forKey: key)
    }

    /// A size or quota: an integer, IEEE notation (`1.2318237429383e+31`) or a numeric string.
    /// Values beyond Int64 are clamped; absent or null gives nil; below `minimum` is an error (a
    /// negative size or a part size of 0 would break the arithmetic that trusts them).
    func decodeLenientInt64IfPresent(forKey key: Key, atLeast minimum: Int64 = 0) throws -> Int64? {
        guard let value = try decodeAnyInt64IfPresent(forKey: key) else { return nil }
        guard value >= minimum else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self, debugDescription: "\(value) is less than \(minimum)")
        }
        return value
    }

    private func decodeAnyInt64IfPresent(forKey key: Key) throws -> Int64? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        if let value = try? decode(Int64.self, forKey: key) { return value }
        if let value = try? decode(Double.self, forKey: key), let clamped = Int64(clamping: value) { return clamped }
        if let text = try? decode(String.self, forKey: key) {
            if let value = Int64(text) { return value }
            if let value = Double(text), let clamped = Int64(clamping: value) { return clamped }
        }
        throw DecodingError.typeMismatch(
            Int64.self, .init(codingPath: codingPath + [key], debugDescription: "expected a number"))
    }

    func decodeLenientInt64(forKey key: Key, atLeast minimum: Int64 = 0) throws -> Int64 {
        guard let value = try decodeLenientInt64IfPresent(forKey: key, atLeast: minimum) else {
            throw DecodingError.keyNotFound(
                key, .init(codingPath: codingPath, debugDescription: "required number is missing or null"))
        }
        return value
    }

    /// An RFC 3339 date-time; absent or null gives nil, anything else unparseable is an error.
    func decodeDateIfPresent(forKey key: Key) throws -> Date? {
        guard let text = try decodeIfPresent(String.self, forKey: key) else { return nil }
        guard let date = BoxDate.parse(text) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self, debugDescription: "\"\(text)\" is not an RFC 3339 date-time")
        }
        return date
    }
}

extension Int64 {
    /// Rounds toward zero and clamps to the Int64 range; nil for NaN.
    init?(clamping value: Double) {
        guard !value.isNaN else { return nil }
        if value >= 9_223_372_036_854_775_807.0 {
            self = .max
        } else if value <= -9_223_372_036_854_775_808.0 {
            self = .min
        } else {
            self.init(value)
        }
    }
}

/// A JSON value that is sometimes one object and sometimes an array of them
/// (`context_info.conflicts` differs by endpoint and era).
struct OneOrMany<Element: Decodable>: Decodable {
    var elements: [Element]

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let many = try? container.decode([Element].self) {
            elements = many
        } else {
            elements = [try container.decode(Element.self)]
        }
    }
}

/// `{ "id": ... }` of a nested reference such as `parent` or `file_version`.
struct ReferenceDTO: Decodable {
    var id: String

    private enum CodingKeys: String, CodingKey { case id }

    init(from decoder: any Decoder) throws {
        id = try decoder.container(keyedBy: CodingKeys.self).decodeID(forKey: .id)
    }
}
