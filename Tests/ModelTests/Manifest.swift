import Crypto
import Foundation

/// A tree as relative path → description, so the model, the mount and Box compare with `==`: folders (path + "/")
/// are `dir`, files `SIZE sha1=HEX` (with the bytes actually read when they disagree with the size).
enum Manifest {
    static let folder = "dir"

    static func sha1(_ bytes: [UInt8]) -> String {
        Insecure.SHA1.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }

    static func file(size: Int, _ bytes: [UInt8]) -> String {
        size == bytes.count ? "\(size) sha1=\(sha1(bytes))" : "\(size) (read \(bytes.count) B) sha1=\(sha1(bytes))"
    }

    /// A file seen in a listing only.
    static func listed(size: Int) -> String { "\(size) listed" }

    /// A file whose read failed with EIO (its content not on this machine, Box out of reach).
    static func unreadable(size: Int) -> String { "\(size) unreadable" }

    /// The models of every thread, each under `tN/`.
    static func of(_ models: [FileModel]) -> [String: String] {
        var result: [String: String] = [:]
        for (thread, model) in models.enumerated() {
            result["t\(thread)/"] = folder
            for (path, bytes) in model.tree {
                result["t\(thread)/" + path] = bytes.map { file(size: $0.count, $0) } ?? folder
            }
        }
        return result
    }

    /// The differences, one line each, at most `limit`.
    static func diff(expected: [String: String], actual: [String: String], limit: Int = 20) -> String {
        let keys = Set(expected.keys).union(actual.keys).sorted()
        let lines = keys.compactMap { key -> String? in
            let (want, got) = (expected[key], actual[key])
            if want == got { return nil }
            return "  \(key): model \(want ?? "absent"), actual \(got ?? "absent")"
        }
        return (lines.prefix(limit) + (lines.count > limit ? ["  ... \(lines.count - limit) more"] : []))
            .joined(separator: "\n")
    }
}
