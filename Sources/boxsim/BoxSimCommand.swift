import ArgumentParser
import BoxSim
import Foundation

/// `boxsim`: a Box API compatible server for tests, demos and benchmarks.
@main
struct BoxSimCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "boxsim", abstract: "A Box API compatible server.", subcommands: [Serve.self])
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serve the Box API from a data directory.")

    @Option(help: "Data directory (SQLite store, file contents, request log).") var data: String
    @Option(help: "Address to listen on.") var host = "127.0.0.1"
    @Option(help: "Port to listen on (0 picks a free one).") var port = 0
    @Option(help: "Local directory to import into the admin user's root folder.") var seed: String?
    @Option(name: .customLong("developer-token"), help: "A token valid for the admin user.") var developerToken: String?
    @Option(name: .customLong("developer-token-lifetime"),
            help: "Seconds the developer token is valid after start (Box: 3600; 0: never expires).")
    var developerTokenLifetime: Int64 = 3600
    @Option(name: .customLong("ready-file"), help: "File that receives the base URL once listening.") var readyFile: String?
    @Flag(help: "Enable the /_control API.") var control = false
    @Option(name: .customLong("token-lifetime"), help: "Access token lifetime in seconds.") var tokenLifetime: Int64 = 3600
    @Flag(name: .customLong("auto-approve"), help: "The OAuth authorize page approves at once.") var autoApprove = false
    @Flag(name: .customLong("exit-with-parent"), help: "Stop when the parent process exits.") var exitWithParent = false

    @Option(name: .customLong("upload-session-lifetime"), help: "Chunked upload session lifetime in seconds.")
    var uploadSessionLifetime: Int64 = 7 * 24 * 3600
    @Option(name: .customLong("rate-limit"), help: "API calls allowed per user per minute (default: unlimited).")
    var rateLimit: Int?
    @Flag(name: .customLong("box-limits"),
          help: "Enforce Box's per-user limits: 1000 API calls/min, 240 uploads/min, 6 searches/s and 60/min (429 + Retry-After beyond).")
    var boxLimits = false
    @Option(name: .customLong("box-limit"),
            help: "Change one number of --box-limits (implies it): NAME=N, NAME one of calls_per_minute, uploads_per_minute, searches_per_second, searches_per_minute; repeatable.")
    var boxLimit: [String] = []
    @Option(name: .customLong("public-url"),
            help: "Base URL of a Box host in the URLs boxsim hands out: ROLE=URL (role api, upload, dl or app), or URL for all; repeatable. Default: the scheme and host the client used (X-Forwarded-Proto/-Host, Forwarded, Host).")
    var publicURL: [String] = []

    private func publicURLOverrides() throws -> PublicURLOverrides {
        var overrides = PublicURLOverrides()
        for option in publicURL {
            do { try overrides.add(option) } catch { throw ValidationError(error.description) }
        }
        return overrides
    }

    /// The `--box-limits` profile with each `--box-limit` applied; nil when neither is given.
    private func boxLimitProfile() throws -> BoxLimitProfile? {
        guard boxLimits || !boxLimit.isEmpty else { return nil }
        var profile = BoxLimitProfile()
        for option in boxLimit {
            do { try profile.set(option) } catch { throw ValidationError(error.description) }
        }
        return profile
    }

    func validate() throws {
        guard developerTokenLifetime >= 0 else { throw ValidationError("--developer-token-lifetime must be ≥ 0") }
        _ = try publicURLOverrides()
        _ = try boxLimitProfile()
    }

    func run() async throws {
        var configuration = BoxSimConfiguration(dataDirectory: URL(fileURLWithPath: data))
        configuration.host = host
        configuration.port = port
        configuration.seedDirectory = seed.map { URL(fileURLWithPath: $0) }
        configuration.developerToken = developerToken
        configuration.developerTokenLifetime = developerTokenLifetime
        configuration.readyFile = readyFile.map { URL(fileURLWithPath: $0) }
        configuration.controlAPI = control
        configuration.accessTokenLifetime = tokenLifetime
        configuration.autoApprove = autoApprove
        configuration.exitWithParent = exitWithParent
        configuration.uploadSessionLifetime = uploadSessionLifetime
        configuration.rateLimitPerMinute = rateLimit
        configuration.boxLimits = try boxLimitProfile()
        configuration.publicURLs = try publicURLOverrides()
        try await BoxSimServer.run(configuration)
    }
}
