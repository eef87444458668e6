/// The small subset of TOML that profiles use: `key = "string"`, `key = 123`, `key = true`, comments
/// (`#`) and blank lines. Strings are basic TOML strings (`\"`, `\\`, `\n`, `\t` escapes). Anything else
/// is an error naming the line, so a typo never silently changes an account.
enum ProfileFile {
    struct ParseError: Error, CustomStringConvertible {
        let description: String
    }

    static func parse(_ text: String, name: String) throws -> [String: String] {
        var values: [String: String] = [:]
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let location = "\(name) line \(index + 1)"
            guard let equals = line.firstIndex(of: "=") else {
                throw ParseError(description: "\(location): expected key = value")
            }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            guard !key.isEmpty, key.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) else {
                throw ParseError(description: "\(location): '\(key)' is not a valid key")
            }
            let rest = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            values[key] = try value(rest, location: location)
        }
        return values
    }

    private static func value(_ text: String, location: String) throws -> String {
        guard text.hasPrefix("\"") else {
            let bare = text.split(separator: "#", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            guard !bare.isEmpty, bare.allSatisfy({ $0.isLetter || $0.isNumber || "+-._".contains($0) }) else {
                throw ParseError(description: "\(location): a text value needs double quotes")
            }
            return bare
        }
        var result = ""
        var iterator = text.dropFirst().makeIterator()
        while let character = iterator.next() {
            switch character {
            case "\"":
                let trailing = String(iterator).trimmingCharacters(in: .whitespaces)
                guard trailing.isEmpty || trailing.hasPrefix("#") else {
                    throw ParseError(description: "\(location): unexpected text after the closing quote")
                }
                return result
            case "\\":
                switch iterator.next() {
                case "\"": result.append("\"")
                case "\\": result.append("\\")
                case "n": result.append("\n")
                case "t": result.append("\t")
                default: throw ParseError(description: "\(location): unknown escape in a string")
                }
            default:
                result.append(character)
            }
        }
        throw ParseError(description: "\(location): the string has no closing quote")
    }

    /// Renders `pairs` in order, strings quoted and escaped.
    static func render(_ pairs: [(String, String)], header: String) -> String {
        var text = header.split(separator: "\n").map { "# \($0)\n" }.joined()
        for (key, value) in pairs {
            let escaped = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                .replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\t", with: "\\t")
            text += "\(key) = \"\(escaped)\"\n"
        }
        return text
    }
}
