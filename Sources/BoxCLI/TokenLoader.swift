import Foundation

/// Reads a token kept in a file (`-o token_file=PATH`, a profile's token file). Which source wins is
/// `AccountResolver`'s decision. The token never appears in arguments (visible in `ps`) or in messages.
enum TokenLoader {
    static let environmentKey = "BOX_DEVELOPER_TOKEN"

    static func read(file path: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw StartupError(description: "cannot read the token file \(path)")
        }
        let token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty else { throw StartupError(description: "the token file \(path) is empty") }
        return token
    }
}
