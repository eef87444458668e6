import Foundation

/// Reads a token kept in a file (`-o token_file=PATH`, a profile's token file). Which source wins is
/// `AccountResolver`'s decision. The token never appears in arguments (visible in `ps`) or in messages,
/// and a file others may read or write is refused (`SecretFile`).
enum TokenLoader {
    static let environmentKey = "BOX_DEVELOPER_TOKEN"

    static func read(file path: String) throws -> String {
        let token = try SecretFile.text(of: path, what: "token file").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty else { throw StartupError(description: "the token file \(path) is empty") }
        return token
    }
}
