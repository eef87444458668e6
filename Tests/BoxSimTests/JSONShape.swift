import Foundation

/// The shape of JSON documents: for each position, the kinds of value seen there (null, bool, number, string,
/// array, object), the members of objects, and the elements of arrays grouped by their `type` member
/// (so a listing's folders and files are compared separately); several documents or elements merge into one shape.
final class JSONShape {
    private(set) var kinds: Set<String> = []
    private(set) var members: [String: JSONShape] = [:]
    /// Array elements by group: the element's `type` string, or "" for elements without one.
    private(set) var elements: [String: JSONShape] = [:]

    init() {}

    convenience init(_ value: JSONValueNode) {
        self.init()
        merge(value)
    }

    func merge(_ value: JSONValueNode) {
        switch value {
        case .null: kinds.insert("null")
        case .bool: kinds.insert("bool")
        case .number: kinds.insert("number")
        case .string: kinds.insert("string")
        case .array(let items):
            kinds.insert("array")
            for item in items {
                var group = ""
                if case .object(let object) = item, case .string(let type)? = object["type"] { group = type }
                Self.child(&elements, group).merge(item)
            }
        case .object(let object):
            kinds.insert("object")
            for (key, member) in object { Self.child(&members, key).merge(member) }
        }
    }

    /// The shape stored under `key`, created on first use.
    private static func child(_ table: inout [String: JSONShape], _ key: String) -> JSONShape {
        if let existing = table[key] { return existing }
        let created = JSONShape()
        table[key] = created
        return created
    }

    /// One difference between a recorded shape and boxsim's, at a path like `entries[file].file_version.sha1`.
    struct Difference: Hashable, CustomStringConvertible {
        enum Kind: String { case missingInBoxsim = "missing in boxsim", extraInBoxsim = "extra in boxsim",
                                 typeDiffers = "type differs" }
        var path: String
        var kind: Kind
        var detail: String = ""
        var description: String { "\(path): \(kind.rawValue)" + (detail.isEmpty ? "" : " (\(detail))") }
    }

    /// The differences from `recorded` (Box) to `self` (boxsim). Only the shallowest difference of a subtree is
    /// reported. Array elements are compared group by group where both sides have elements; a group Box has that
    /// boxsim lacks is reported, a group only boxsim has is not (recordings are samples).
    func differences(from recorded: JSONShape, path: String = "") -> [Difference] {
        var found: [Difference] = []
        if kinds != recorded.kinds {
            found.append(Difference(path: path.isEmpty ? "." : path, kind: .typeDiffers,
                                    detail: "Box \(recorded.kinds.sorted()) vs boxsim \(kinds.sorted())"))
        }
        if kinds.contains("object") && recorded.kinds.contains("object") {
            for key in recorded.members.keys.sorted() {
                let child = path.isEmpty ? key : path + "." + key
                if let mine = members[key] {
                    found += mine.differences(from: recorded.members[key]!, path: child)
                } else {
                    found.append(Difference(path: child, kind: .missingInBoxsim))
                }
            }
            for key in members.keys.sorted() where recorded.members[key] == nil {
                found.append(Difference(path: path.isEmpty ? key : path + "." + key, kind: .extraInBoxsim))
            }
        }
        if !elements.isEmpty && !recorded.elements.isEmpty {
            for group in recorded.elements.keys.sorted() {
                let child = "\(path)[\(group)]"
                if let mine = elements[group] {
                    found += mine.differences(from: recorded.elements[group]!, path: child)
                } else {
                    found.append(Difference(path: child, kind: .missingInBoxsim, detail: "no such elements"))
                }
            }
        }
        return found
    }
}

/// A parsed JSON value that keeps booleans apart from numbers (`JSONSerialization` does not).
indirect enum JSONValueNode: Decodable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValueNode])
    case object([String: JSONValueNode])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValueNode].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValueNode].self))
        }
    }

    static func parse(_ data: Data) throws -> JSONValueNode {
        try JSONDecoder().decode(JSONValueNode.self, from: data)
    }

    /// The value at a dotted path of object members (e.g. `shared_link.permissions`).
    func at(_ path: String) -> JSONValueNode? {
        var current: JSONValueNode? = self
        for key in path.split(separator: ".") {
            guard case .object(let object)? = current else { return nil }
            current = object[String(key)]
        }
        return current
    }
}
