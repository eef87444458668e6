/// An ordered list of header fields with case-insensitive lookup by name.
///
/// Order and duplicates are kept (`Set-Cookie` may repeat). `description` never shows values of
/// credential-bearing fields, so printing headers cannot leak a token.
public struct HTTPHeaders: Sendable, Hashable {
    /// One header field as sent or received.
    public struct Field: Sendable, Hashable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public private(set) var fields: [Field]

    public init() {
        fields = []
    }

    public init(_ pairs: [(String, String)]) {
        fields = pairs.map { Field(name: $0.0, value: $0.1) }
    }

    public var count: Int { fields.count }
    public var isEmpty: Bool { fields.isEmpty }

    /// The first value for `name`; setting replaces every field of that name (nil removes them).
    public subscript(name: String) -> String? {
        get { fields.first { Self.sameName($0.name, name) }?.value }
        set {
            if let newValue, let index = fields.firstIndex(where: { Self.sameName($0.name, name) }) {
                fields[index].value = newValue
                let tail = fields[(index + 1)...].filter { !Self.sameName($0.name, name) }
                fields.replaceSubrange((index + 1)..., with: tail)
            } else {
                remove(name: name)
                if let newValue { add(name: name, value: newValue) }
            }
        }
    }

    /// Every value for `name`, in order.
    public func values(for name: String) -> [String] {
        fields.filter { Self.sameName($0.name, name) }.map(\.value)
    }

    public func contains(_ name: String) -> Bool {
        fields.contains { Self.sameName($0.name, name) }
    }

    /// Appends a field, keeping any existing ones of the same name.
    public mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    public mutating func remove(name: String) {
        fields.removeAll { Self.sameName($0.name, name) }
    }

    /// ASCII case-insensitive comparison without allocating (header names are ASCII tokens).
    static func sameName(_ lhs: String, _ rhs: String) -> Bool {
        let left = lhs.utf8, right = rhs.utf8
        guard left.count == right.count else { return false }
        return zip(left, right).allSatisfy { asciiLower($0) == asciiLower($1) }
    }

    private static func asciiLower(_ byte: UInt8) -> UInt8 {
        (byte >= 65 && byte <= 90) ? byte + 32 : byte
    }
}

extension HTTPHeaders: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }
}

extension HTTPHeaders: Sequence {
    public func makeIterator() -> IndexingIterator<[Field]> {
        fields.makeIterator()
    }
}

extension HTTPHeaders: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Names of fields whose values are credentials and are never printed.
    static let redactedNames: [String] = [
        "authorization", "proxy-authorization", "cookie", "set-cookie", "boxapi", "x-api-key",
    ]

    public var description: String {
        let shown = fields.map { field in
            let redacted = Self.redactedNames.contains { Self.sameName($0, field.name) }
            return "\(field.name): \(redacted ? "<redacted>" : field.value)"
        }
        return "[" + shown.joined(separator: ", ") + "]"
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(self, unlabeledChildren: [description], displayStyle: .collection)
    }
}
