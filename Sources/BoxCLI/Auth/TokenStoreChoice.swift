import BoxAuth

/// The `token_store` setting (mount option or profile key): the one place a `TokenStore` is chosen.
///
/// To add a store (a keyring, say): implement BoxAuth's `TokenStore` (see its doc comment), add its
/// name to `names` and a case to `make`, and say whether it outlives the process (`isPersistent`), which an
/// OAuth2 profile needs because its single-use refresh token must survive a restart.
enum TokenStoreChoice {
    static let names = ["file", "memory"]
    static let defaultName = "file"

    static func make(_ name: String, profile: String, directory: ConfigDirectory) throws -> any TokenStore {
        switch name {
        case "file": return FileTokenStore(path: directory.tokenPath(profile))
        case "memory": return MemoryTokenStore()
        default:
            throw StartupError(description: "unknown token store '\(name)' (one of \(names.joined(separator: ", ")))")
        }
    }

    /// Whether tokens written to the store are still there for the next run.
    static func isPersistent(_ name: String) -> Bool {
        name != "memory"
    }
}
