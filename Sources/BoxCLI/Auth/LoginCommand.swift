import ArgumentParser
import BoxAPI
import BoxAuth
import CurlHTTP
import Foundation
import Logging

/// `boxfs login`: OAuth2 3-legged sign-in. Prints the authorize URL (and opens it with `$BROWSER` when
/// set), receives Box's redirect on a loopback port, checks `state`, exchanges the code and stores the
/// tokens; the profile then serves `mount.boxfs box: ~/Box` with no other flag.
struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login", abstract: "Sign in to Box (OAuth2) and save the account as a profile.",
        discussion: """
            The client secret is read from --client-secret-file, $BOX_CLIENT_SECRET, the existing profile, or the
            terminal; never from the command line. The app's redirect URI must be http://127.0.0.1:PORT/callback.
            """)

    @Option(help: "Profile name.") var profile = ConfigDirectory.defaultProfileName()
    @Option(help: "The app's client id (default: the profile's).") var clientId: String?
    @Option(help: "File holding the app's client secret.") var clientSecretFile: String?
    @Option(help: "Box server base (default https://api.box.com).") var endpoint: String?
    @Option(help: "Authorize page (default: account.box.com, or <endpoint>/api/oauth2/authorize).") var authorizeUrl: String?
    @Option(help: "Loopback port for the redirect (0 picks one; must match the app's redirect URI).") var port: UInt16 = 8754
    @Option(help: "Seconds to wait for the browser.") var timeout: Double = 300

    func run() async throws {
        do {
            try await signIn()
        } catch {
            FileHandle.standardError.write(Data("boxfs login: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }

    private func signIn() async throws {
        let directory = ConfigDirectory.current()
        let existing = try Profile.load(profile, from: directory)
        var saved = existing?.auth == .oauth ? existing! : Profile(name: profile, auth: .oauth)
        saved.endpoint = endpoint ?? saved.endpoint
        saved.authorizeURL = authorizeUrl ?? saved.authorizeURL
        guard let clientID = clientId ?? saved.clientID else { throw StartupError(description: "--client-id is required") }
        saved.clientID = clientID
        saved.clientSecret = try SecretInput.clientSecret(file: clientSecretFile, existing: saved.clientSecret)
        let storeName = saved.tokenStore ?? TokenStoreChoice.defaultName
        guard TokenStoreChoice.isPersistent(storeName) else {
            throw StartupError(description: "token_store = \(storeName) forgets the refresh token; OAuth2 needs e.g. file")
        }
        let store = try TokenStoreChoice.make(storeName, profile: profile, directory: directory)

        let http = HTTPClient()
        let apiBase = saved.endpoint ?? BoxEndpoints.box.apiBase
        let source = OAuth2Source(
            endpoint: TokenEndpoint(apiBase: apiBase, http: http), clientID: clientID, clientSecret: saved.clientSecret!)
        let receiver = try LoopbackRedirectReceiver(port: port)
        let state = OAuth2Source.randomState()
        let authorizeBase = saved.authorizeURL
            ?? (saved.endpoint.map { $0 + "/api/oauth2/authorize" } ?? "https://account.box.com/api/oauth2/authorize")
        let url = OAuth2Source.authorizeURL(
            base: authorizeBase, clientID: clientID, redirectURI: receiver.redirectURI, state: state)
        print("Open this page in a browser to let boxfs use your Box account:\n\n  \(url)\n")
        print("Waiting for Box to redirect to \(receiver.redirectURI) ...")
        let browser = try openBrowser(url)
        let query = try await receiver.waitForRedirect(timeout: timeout, expectedState: state)
        browser?.waitUntilExit()
        guard query["state"] == state else {
            throw AuthError(.authorization, "the redirect did not carry the state boxfs sent; sign-in aborted")
        }
        if let error = query["error"] {
            throw AuthError(.authorization, "Box sign-in failed: \(error) \(query["error_description"] ?? "")")
        }
        guard let code = query["code"] else { throw AuthError(.authorization, "the redirect carried no code") }
        let token = try await source.exchange(code: code, redirectURI: receiver.redirectURI)
        try await store.write(token)
        try saved.save(to: directory)

        let client = BoxClient(
            endpoints: saved.endpoint.map { BoxEndpoints(serverBase: $0) } ?? .box, http: http,
            tokens: StaticTokenProvider(token: token.accessToken))
        let user = try await client.currentUser()
        print("Signed in to Box as \(user.name) (user \(user.id)); saved as profile '\(profile)'.")
        print("Mount with: mount.boxfs box: ~/Box\(profile == ConfigDirectory.defaultProfileName() ? "" : " -o profile=\(profile)")")
    }

    /// Runs `$BROWSER URL` when `$BROWSER` is set (as `sh -c '$BROWSER "$1"'`).
    private func openBrowser(_ url: String) throws -> Process? {
        guard let browser = ProcessInfo.processInfo.environment["BROWSER"], !browser.isEmpty else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", browser + " \"$1\"", "browser", url]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        return process
    }
}
