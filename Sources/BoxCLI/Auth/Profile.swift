import Foundation

/// One Box account as boxfs reaches it: how it authenticates and where. Stored as
/// `profiles/NAME.toml` (see docs/AUTH.md for every key).
struct Profile: Sendable, Equatable {
    enum Auth: String, Sendable, CaseIterable {
        /// OAuth2 3-legged, set up by `boxfs login`; tokens in the token store.
        case oauth
        /// Client Credentials Grant (service account or user).
        case ccg
        /// JWT server auth from the developer console's config.json.
        case jwt
        /// A command that prints a token (see `DelegatedCommandSource`).
        case delegated
        /// A developer token read from a file (never refreshed).
        case developer
    }

    var name: String
    var auth: Auth
    /// Server base (`https://api.box.com` when absent, boxsim's base URL in tests).
    var endpoint: String?
    /// Where `boxfs login` sends the browser (default: account.box.com's authorize page).
    var authorizeURL: String?
    var clientID: String?
    var clientSecret: String?
    /// `enterprise` or `user` (CCG and JWT).
    var subjectType: String?
    var subjectID: String?
    /// JWT: path of config.json.
    var jwtConfig: String?
    /// Delegated: the command, and the unique id it is given.
    var command: String?
    var uniqueID: String?
    /// Developer: the token file. Delegated: an optional initial token file.
    var tokenFile: String?
    var asUser: String?
    /// `file` (default) or `memory`.
    var tokenStore: String?

    static var keys: [(String, WritableKeyPath<Profile, String?>)] {[
        ("endpoint", \.endpoint), ("authorize_url", \.authorizeURL), ("client_id", \.clientID),
        ("client_secret", \.clientSecret), ("subject_type", \.subjectType), ("subject_id", \.subjectID),
        ("jwt_config", \.jwtConfig), ("command", \.command), ("unique_id", \.uniqueID), ("token_file", \.tokenFile),
        ("as_user", \.asUser), ("token_store", \.tokenStore),
    ]}

    init(name: String, auth: Auth) {
        self.name = name
        self.auth = auth
    }

    init(name: String, values: [String: String]) throws {
        guard let text = values["auth"] else {
            throw StartupError(description: "profile '\(name)' has no auth = ... line")
        }
        guard let auth = Auth(rawValue: text) else {
            let known = Auth.allCases.map(\.rawValue).joined(separator: ", ")
            throw StartupError(description: "profile '\(name)': unknown auth '\(text)' (one of \(known))")
        }
        self.init(name: name, auth: auth)
        let known = Set(Self.keys.map(\.0) + ["auth"])
        if let unknown = values.keys.sorted().first(where: { !known.contains($0) }) {
            throw StartupError(description: "profile '\(name)': unknown key '\(unknown)' (see docs/AUTH.md)")
        }
        for (key, path) in Self.keys { self[keyPath: path] = values[key] }
    }

    static func load(_ name: String, from directory: ConfigDirectory) throws -> Profile? {
        try ConfigDirectory.validate(profileName: name)
        let path = directory.profilePath(name)
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        do {
            return try Profile(name: name, values: ProfileFile.parse(String(decoding: data, as: UTF8.self), name: path))
        } catch let error as ProfileFile.ParseError {
            throw StartupError(description: error.description)
        }
    }

    func save(to directory: ConfigDirectory) throws {
        try ConfigDirectory.validate(profileName: name)
        var pairs = [("auth", auth.rawValue)]
        for (key, path) in Self.keys { if let value = self[keyPath: path] { pairs.append((key, value)) } }
        let text = ProfileFile.render(pairs, header: "boxfs profile '\(name)' (see docs/AUTH.md). Holds secrets: keep it 0600.")
        try ConfigDirectory.writePrivately(text, to: directory.profilePath(name))
    }

    /// What `boxfs profile show` prints: every key, secrets replaced.
    var redactedDescription: String {
        var lines = ["auth = \(auth.rawValue)"]
        for (key, path) in Self.keys {
            guard let value = self[keyPath: path] else { continue }
            lines.append("\(key) = \(key == "client_secret" ? "<redacted>" : value)")
        }
        return lines.joined(separator: "\n")
    }

    /// A required value, or an error naming the key.
    func require(_ value: String?, _ key: String) throws -> String {
        guard let value, !value.isEmpty else {
            throw StartupError(description: "profile '\(name)' (auth = \(auth.rawValue)) needs \(key) = ...")
        }
        return value
    }
}
