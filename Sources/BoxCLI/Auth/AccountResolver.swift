import BoxAuth
import CurlHTTP
import Foundation
import Logging

/// Picks the token source of a mount, in this order:
/// 1. `-o token_file=PATH` (a developer token, as before profiles existed);
/// 2. `-o profile=NAME`;
/// 3. `$BOX_DEVELOPER_TOKEN`;
/// 4. the default profile (`$BOXFS_PROFILE`, else `default`) if it exists.
enum AccountResolver {
    static func resolve(
        options: MountOptions, http: HTTPClient, logger: Logger,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> Account {
        let directory = ConfigDirectory.current(environment)
        if let path = options.tokenFile {
            let token = try TokenLoader.read(file: path)
            let source = TokenFileSource(path: path) { try TokenLoader.read(file: path) }
            let authenticator = Authenticator(
                source: source, initial: TokenInfo(accessToken: token, expiresAt: nil), logger: logger)
            return Account(
                tokens: authenticator, label: "token file",
                rejectedTokenAdvice: "developer tokens expire after 60 minutes and cannot be refreshed; put a new token in "
                    + "\(path) and mount again (a mount that is already running reads the file again by itself), or sign in once with `boxfs login`",
                tokenFile: source)
        }
        if let name = options.profile {
            guard let profile = try Profile.load(name, from: directory) else {
                throw StartupError(
                    description: "no profile '\(name)' in \(directory.path)/profiles: run `boxfs login --profile \(name)` "
                        + "or `boxfs profile add \(name) ...`")
            }
            return try account(for: profile, options: options, directory: directory, http: http, logger: logger)
        }
        if let token = environment[TokenLoader.environmentKey]?.trimmingCharacters(in: .whitespacesAndNewlines),
            !token.isEmpty
        {
            return developerToken(token, label: "developer token")
        }
        let name = ConfigDirectory.defaultProfileName(environment)
        if let profile = try Profile.load(name, from: directory) {
            return try account(for: profile, options: options, directory: directory, http: http, logger: logger)
        }
        throw StartupError(
            description: "no access token: set \(TokenLoader.environmentKey), use -o token_file=PATH, "
                + "or sign in once with `boxfs login`")
    }

    static func account(
        for profile: Profile, options: MountOptions, directory: ConfigDirectory, http: HTTPClient, logger: Logger
    ) throws -> Account {
        let endpoint = options.endpoint ?? profile.endpoint
        let authenticator = try authenticator(
            for: profile, endpoint: endpoint, storeKind: options.tokenStore, directory: directory, http: http,
            logger: logger)
        return Account(
            tokens: authenticator, authenticator: authenticator, endpoint: profile.endpoint, asUser: profile.asUser,
            label: "profile '\(profile.name)' (\(profile.auth.rawValue))",
            rejectedTokenAdvice: Account.rejectedTokenAdvice(for: profile))
    }

    /// A developer token from `-o token_file` or the environment: never refreshed, and a running mount
    /// logs why when Box rejects it.
    private static func developerToken(_ token: String, label: String) -> Account {
        Account(
            tokens: Authenticator.fixed(token), label: label, rejectedTokenAdvice: Account.developerTokenAdvice)
    }

    static func authenticator(
        for profile: Profile, endpoint: String?, storeKind: String?, directory: ConfigDirectory, http: HTTPClient,
        logger: Logger
    ) throws -> Authenticator {
        let tokenEndpoint = TokenEndpoint(apiBase: endpoint ?? "https://api.box.com", http: http)
        let storeName = storeKind ?? profile.tokenStore ?? TokenStoreChoice.defaultName
        let store = try TokenStoreChoice.make(storeName, profile: profile.name, directory: directory)
        switch profile.auth {
        case .oauth:
            guard TokenStoreChoice.isPersistent(storeName) else {
                throw StartupError(
                    description: "an OAuth2 profile needs a token store that outlives the mount, such as "
                        + "token_store=file (its refresh token is single-use)")
            }
            let source = OAuth2Source(
                endpoint: tokenEndpoint, clientID: try profile.require(profile.clientID, "client_id"),
                clientSecret: try profile.require(profile.clientSecret, "client_secret"))
            return Authenticator(source: source, store: store, logger: logger)
        case .ccg:
            guard let subject = try subject(profile) else {
                throw StartupError(description: "profile '\(profile.name)' needs subject_type and subject_id")
            }
            let source = ClientCredentialsSource(
                endpoint: tokenEndpoint, clientID: try profile.require(profile.clientID, "client_id"),
                clientSecret: try profile.require(profile.clientSecret, "client_secret"), subject: subject)
            return Authenticator(source: source, store: store, logger: logger)
        case .jwt:
            let config = try BoxAppConfig(contentsOf: try profile.require(profile.jwtConfig, "jwt_config"))
            let source = try JWTSource(endpoint: tokenEndpoint, config: config, subject: try subject(profile))
            return Authenticator(source: source, store: store, logger: logger)
        case .delegated:
            let source = DelegatedCommandSource(
                command: try profile.require(profile.command, "command"),
                uniqueID: try profile.require(profile.uniqueID, "unique_id"))
            let initial = try profile.tokenFile.map { TokenInfo(accessToken: try readToken($0), expiresAt: nil) }
            return Authenticator(source: source, store: nil, initial: initial, logger: logger)
        case .developer:
            let path = try profile.require(profile.tokenFile, "token_file")
            return Authenticator.fixed(try readToken(path))
        }
    }

    private static func subject(_ profile: Profile) throws -> ClientCredentialsSource.Subject? {
        guard let type = profile.subjectType else { return nil }
        let id = try profile.require(profile.subjectID, "subject_id")
        switch type {
        case "enterprise": return .enterprise(id)
        case "user": return .user(id)
        default: throw StartupError(description: "profile '\(profile.name)': subject_type is enterprise or user")
        }
    }

    private static func readToken(_ path: String) throws -> String {
        try TokenLoader.read(file: path)
    }
}
