import Foundation

/// Decoding response bodies into DTOs, with failures turned into `BoxAPIError.decoding` that say
/// what was wrong and where (`entries[3].type: unknown item type "x"`), never the body itself.
enum BoxJSON {
    static func decode<T: Decodable>(_ type: T.Type, from data: Data, status: Int = 200, request: String? = nil)
        throws(BoxAPIError) -> T
    {
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch let error as DecodingError {
            throw BoxAPIError(kind: .decoding(explain(error)), status: status, request: request)
        } catch {
            throw BoxAPIError(kind: .decoding(String(describing: error)), status: status, request: request)
        }
    }

    /// A one-line reading of a DecodingError.
    static func explain(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])): required field is missing"
        case .valueNotFound(_, let context):
            return "\(path(context.codingPath)): required value is null"
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)): expected \(type) (\(context.debugDescription))"
        case .dataCorrupted(let context):
            return "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return String(describing: error)
        }
    }

    /// `entries[3].file_version.id`, or `(top level)`.
    static func path(_ codingPath: [any CodingKey]) -> String {
        var text = ""
        for key in codingPath {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += (text.isEmpty ? "" : ".") + key.stringValue
            }
        }
        return text.isEmpty ? "(top level)" : text
    }
}
