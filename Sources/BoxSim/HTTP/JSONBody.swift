import Foundation
import Hummingbird

/// Reads a small JSON object body; malformed JSON is Box's 400.
enum JSONBody {
    static func read(_ request: Request, limit: Int = 1 << 20) async throws -> [String: Any] {
        let buffer = try await request.body.collect(upTo: limit)
        if buffer.readableBytes == 0 { return [:] }
        guard let object = try? JSONSerialization.jsonObject(with: Data(buffer: buffer)) as? [String: Any] else {
            throw BoxError.badRequest("Could not parse JSON body", code: "bad_request")
        }
        return object
    }

    static func int64(_ value: Any?) -> Int64? {
        if let number = value as? NSNumber { return number.int64Value }
        if let text = value as? String { return Int64(text) }
        return nil
    }
}
