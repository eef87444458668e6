import Foundation

/// Finds the developer token: `-o token_file=PATH`, else `BOX_DEVELOPER_TOKEN`.
/// The token never appears in arguments (visible in `ps`) or in messages.
enum TokenLoader {
    static let environmentKey = "BOX_DEVELOPER_TOKEN"

    static func load(options: MountOptions) throws -> String {
        if let path = options.tokenFile {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw StartupError(description: "cannot read the token file \(path)")
            }
            let token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard !token.isEmpty else { throw StartupError(description: "the token file \(path) is empty") }
            return token
        }
        if let token = ProcessInfo.processInfo.environment[environmentKey]?.trimmingCharacters(in: .whitespacesAndNewlines),
            !token.isEmpty
        {
            return token
        }
        throw StartupError(description: "no access token: set \(environmentKey) or use -o token_file=PATH")
    }
}
