import ArgumentParser
import BoxAPI
import BoxAuth
import CurlHTTP
import Foundation
import Logging

/// `boxfs profile add|list|show|remove`: accounts that authenticate without a browser (CCG, JWT,
/// delegated command, developer token). `add` checks the account before saving it.
struct ProfileCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profile", abstract: "Manage Box accounts (profiles).",
        subcommands: [Add.self, List.self, Show.self, Remove.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Configure a profile (ccg, jwt, delegated or developer) and check it.",
            discussion: "Secrets come from files or $BOX_CLIENT_SECRET, never from arguments. See docs/AUTH.md.")

        @Argument(help: "Profile name.") var name: String
        @Option(help: "ccg, jwt, delegated or developer.") var auth: String
        @Option(help: "Box server base (default https://api.box.com).") var endpoint: String?
        @Option(help: "CCG: the app's client id.") var clientId: String?
        @Option(help: "CCG: file holding the client secret.") var clientSecretFile: String?
        @Option(help: "CCG/JWT: act as the service account of this enterprise.") var enterpriseId: String?
        @Option(help: "CCG/JWT: act as this user.") var userId: String?
        @Option(help: "JWT: the config.json from the developer console.") var jwtConfig: String?
        @Option(help: "Delegated: command printing a token and its lifetime.") var command: String?
        @Option(help: "Delegated: the unique id passed to the command.") var uniqueId: String?
        @Option(help: "Developer: file holding the token. Delegated: optional initial token file.") var tokenFile: String?
        @Option(help: "Send As-User: ID on every call.") var asUser: String?
        @Option(help: "file (default) or memory.") var tokenStore: String?
        @Flag(help: "Save without checking the account.") var noCheck = false

        func run() async throws {
            do {
                try await add()
            } catch {
                let message = StartupError.describe(error, endpoint: endpoint ?? BoxEndpoints.box.apiBase)
                FileHandle.standardError.write(Data("boxfs profile add: \(message)\n".utf8))
                throw ExitCode(1)
            }
        }

        private func add() async throws {
            guard let kind = Profile.Auth(rawValue: auth), kind != .oauth else {
                throw StartupError(description: "--auth is ccg, jwt, delegated or developer (use `boxfs login` for OAuth2)")
            }
            var profile = Profile(name: name, auth: kind)
            profile.endpoint = endpoint
            profile.clientID = clientId
            if kind == .ccg { profile.clientSecret = try SecretInput.clientSecret(file: clientSecretFile, existing: nil) }
            if let enterpriseId { (profile.subjectType, profile.subjectID) = ("enterprise", enterpriseId) }
            if let userId { (profile.subjectType, profile.subjectID) = ("user", userId) }
            profile.jwtConfig = jwtConfig.map(Self.absolute)
            profile.command = command
            profile.uniqueID = uniqueId
            profile.tokenFile = tokenFile.map(Self.absolute)
            profile.asUser = asUser
            profile.tokenStore = tokenStore
            let directory = ConfigDirectory.current()
            try ConfigDirectory.validate(profileName: name)
            if !noCheck {
                let http = HTTPClient()
                let authenticator = try AccountResolver.authenticator(
                    for: profile, endpoint: endpoint, storeKind: nil, directory: directory, http: http,
                    logger: Self.quietLogger)
                var client = BoxClient(
                    endpoints: endpoint.map { BoxEndpoints(serverBase: $0) } ?? .box, http: http, tokens: authenticator)
                if let asUser { client = client.asUser(asUser) }
                let user = try await AuthStartup.checkUser(
                    client, asUser: asUser, rejectedTokenAdvice: Account.rejectedTokenAdvice(for: profile))
                print("Box accepted profile '\(name)': user \(user.name) (\(user.id)).")
            }
            try profile.save(to: directory)
            print("Saved profile '\(name)' in \(directory.profilePath(name)).")
        }

        /// The check's failure is the one line printed; the authenticator's own warnings would repeat it.
        private static var quietLogger: Logger {
            var logger = Logger(label: "boxfs.auth")
            logger.logLevel = .critical
            return logger
        }

        private static func absolute(_ path: String) -> String {
            path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List profiles.")
        func run() throws {
            let directory = ConfigDirectory.current()
            let fallback = ConfigDirectory.defaultProfileName()
            for name in directory.profileNames() {
                let auth = (try? Profile.load(name, from: directory))?.auth.rawValue ?? "unreadable"
                print("\(name)\t\(auth)\(name == fallback ? "\t(default)" : "")")
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a profile (secrets redacted).")
        @Argument var name: String = ConfigDirectory.defaultProfileName()
        func run() throws {
            guard let profile = try Profile.load(name, from: ConfigDirectory.current()) else {
                throw ValidationError("no profile '\(name)'")
            }
            print(profile.redactedDescription)
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a profile and its stored tokens (no revoke).")
        @Argument var name: String
        func run() throws {
            let directory = ConfigDirectory.current()
            try ConfigDirectory.validate(profileName: name)
            try? FileManager.default.removeItem(atPath: directory.tokenPath(name))
            try FileManager.default.removeItem(atPath: directory.profilePath(name))
        }
    }
}
