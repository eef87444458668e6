import BoxAPI
import Foundation

/// The small subset of TOML that profiles use: `key = "string"`, `key = 123`, `key = true`, comments
/// (`#`) and blank lines, lines ending in LF or CRLF. Strings are basic TOML strings (`\"`, `\\`, `\n`,
/// `\r`, `\t` escapes). Anything else, a key given twice included, is an error naming the line, so a
/// typo never silently changes an account.
enum ProfileFile {
    struct ParseError: Error, CustomStringConvertible {
        let description: String

        init(description: String) { self.description = description.oneLine }
    }

    /// Lines end in LF or CRLF (CRLF is one Character to Swift, so splitting on "\n" alone misses it).
    static func lines(_ text: String) -> [Substring] {
        text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
    }

    static func parse(_ text: String, name: String) throws -> [String: String] {
        var values: [String: String] = [:]
        for (index, rawLine) in lines(text).enumerated() {
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
            guard values[key] == nil else { throw ParseError(description: "\(location): '\(key)' is given twice") }
            let rest = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            values[key] = try value(rest, location: location)
        }
        return values
    }

    /// Read scalar by scalar: a combining mark after the opening quote joins it into one Character.
    private static func value(_ text: String, location: String) throws -> String {
        guard text.unicodeScalars.first == "\"" else {
            let bare = text.split(separator: "#", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            guard !bare.isEmpty, bare.allSatisfy({ $0.isLetter || $0.isNumber || "+-._".contains($0) }) else {
                throw ParseError(description: "\(location): a text value needs double quotes")
            }
            return bare
        }
        var result = String.UnicodeScalarView()
        var iterator = text.unicodeScalars.dropFirst().makeIterator()
        while let scalar = iterator.next() {
            switch scalar {
            case "\"":
                var rest = String.UnicodeScalarView()
                while let next = iterator.next() { rest.append(next) }
                let trailing = String(rest).trimmingCharacters(in: .whitespaces)
                guard trailing.isEmpty || trailing.hasPrefix("#") else {
                    throw ParseError(description: "\(location): unexpected text after the closing quote")
                }
                return String(result)
            case "\\":
                switch iterator.next() {
                case "\"": result.append("\"")
                case "\\": result.append("\\")
                case "n": result.append("\n")
                case "r": result.append("\r")
                case "t": result.append("\t")
                default: throw ParseError(description: "\(location): unknown escape in a string")
                }
            default:
                result.append(scalar)
            }
        }
        throw ParseError(description: "\(location): the string has no closing quote")
    }

    /// Renders `pairs` in order, strings quoted and escaped.
    static func render(_ pairs: [(String, String)], header: String) -> String {
        var text = lines(header).map { "# \($0)\n" }.joined()
        for (key, value) in pairs {
            // Scalar by scalar: a CRLF in a value is one Character, which Character-wise replacing misses.
            var escaped = ""
            for scalar in value.unicodeScalars {
                switch scalar {
                case "\\": escaped += "\\\\"
                case "\"": escaped += "\\\""
                case "\n": escaped += "\\n"
                case "\r": escaped += "\\r"
                case "\t": escaped += "\\t"
                default: escaped.unicodeScalars.append(scalar)
                }
            }
            text += "\(key) = \"\(escaped)\"\n"
        }
        return text
    }
}
