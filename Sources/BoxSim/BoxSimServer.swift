import Crypto
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

/// Settings of one boxsim server process (the `boxsim serve` options).
public struct BoxSimConfiguration: Sendable {
    public var dataDirectory: URL
    public var host: String = "127.0.0.1"
    public var port: Int = 0
    public var seedDirectory: URL?
    public var developerToken: String?
    /// Seconds the developer token stays valid from this start (Box: 60 minutes); 0: it never expires.
    public var developerTokenLifetime: Int64 = 3600
    public var readyFile: URL?
    public var controlAPI: Bool = false
    /// Lifetime of issued access tokens, in seconds (Box: 3600).
    public var accessTokenLifetime: Int64 = 3600
    /// The authorize page approves at once (for tests of the OAuth 2 flow).
    public var autoApprove: Bool = false
    /// Stop (as on SIGTERM) when the parent process goes away, so a crashed test run leaves no server behind.
    public var exitWithParent: Bool = false
    /// Lifetime of chunked upload sessions, in seconds (Box: 7 days).
    public var uploadSessionLifetime: Int64 = 7 * 24 * 3600
    /// API calls allowed per user per minute; nil: unlimited.
    public var rateLimitPerMinute: Int?
    /// Box's per-user limits (`--box-limits`, numbers changed with `--box-limit`); nil: off.
    public var boxLimits: BoxLimitProfile?
    /// Base URLs of the Box hosts in the absolute URLs boxsim hands out (`--public-url`); a role not named
    /// gets the scheme and host the client used (`ForwardedHeaders`).
    public var publicURLs = PublicURLOverrides()

    public init(dataDirectory: URL) {
        self.dataDirectory = dataDirectory
    }
}

/// The boxsim server: opens the store, seeds it, serves until SIGTERM/SIGINT.
public enum BoxSimServer {
    public static func run(_ configuration: BoxSimConfiguration) async throws {
        var logger = Logger(label: "boxsim")
        logger.logLevel = ProcessInfo.processInfo.environment["BOXSIM_LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0) }
            ?? .warning
        let store = try Store(dataDirectory: configuration.dataDirectory)
        let admin = try store.ensureAdmin()
        if let token = configuration.developerToken {
            let lifetime = configuration.developerTokenLifetime
            try store.registerDeveloperToken(token, userID: admin.id!,
                                             expiresAt: lifetime > 0 ? Timestamp.now() + lifetime : nil)
        }
        if let seed = configuration.seedDirectory {
            _ = try await Seeder(store: store, owner: admin).importTreeOffThePool(at: seed)
        }
        let keyText = try store.metaValue("download_key") {
            SymmetricKey(size: .bits256).withUnsafeBytes { Data($0).base64EncodedString() }
        }
        let signer = DownloadTokenSigner(keyBytes: Array(Data(base64Encoded: keyText) ?? Data(keyText.utf8)))
        let log = try RequestLog(path: configuration.dataDirectory.appendingPathComponent("requests.jsonl").path)

        let settings = ServerSettings(.init(accessTokenLifetime: configuration.accessTokenLifetime,
                                            autoApprove: configuration.autoApprove,
                                            uploadSessionLifetime: configuration.uploadSessionLifetime,
                                            rateLimitPerMinute: configuration.rateLimitPerMinute,
                                            boxLimits: configuration.boxLimits))
        let router = Router(context: BoxContext.self)
        let faults = FaultInjector()
        router.add(middleware: RequestLogMiddleware(log: log))
        router.add(middleware: FaultMiddleware(faults: faults))
        router.add(middleware: RequestBaseMiddleware(overrides: configuration.publicURLs))
        router.add(middleware: GzipMiddleware())
        let channels = LongPollChannels()
        let redelivery = EventRedelivery()
        let limiter = RateLimiter(settings: settings)
        let boxLimiter = BoxLimiter(settings: settings)
        for prefix in ["2.0", "api/2.0"] {
            let api = router.group(RouterPath(prefix))
                .add(middleware: AuthMiddleware(store: store, limiter: limiter, boxLimiter: boxLimiter))
            UserRoutes(store: store).register(on: api)
            FolderRoutes(store: store).register(on: api)
            FileRoutes(store: store, signer: signer).register(on: api)
            ItemWriteRoutes(store: store).register(on: api)
            UploadRoutes(store: store).register(on: api)
            CopyRoutes(store: store).register(on: api)
            SharedItemRoutes(store: store).register(on: api)
            EventRoutes(store: store, settings: settings, channels: channels, redelivery: redelivery).register(api: api)
            UploadSessionRoutes(store: store, settings: settings).register(on: api)
            VersionRoutes(store: store).register(on: api)
            TrashRoutes(store: store).register(on: api)
            SearchRoutes(store: store).register(on: api)
            CollaborationRoutes(store: store).register(on: api)
        }
        DownloadRoutes(store: store, signer: signer).register(on: router)
        SharedStaticRoutes(store: store, signer: signer).register(on: router)
        SharedLinkPageRoutes(store: store).register(on: router)
        EventRoutes(store: store, settings: settings, channels: channels, redelivery: redelivery).register(root: router)
        TokenRoutes(store: store, settings: settings).register(on: router)
        AuthorizeRoutes(store: store, settings: settings).register(on: router)
        if configuration.controlAPI {
            ControlRoutes(store: store, log: log, settings: settings, faults: faults).register(on: router)
            LimitControlRoutes(settings: settings, limiter: limiter, boxLimiter: boxLimiter).register(on: router)
            EventFaultControlRoutes(store: store).register(on: router)
        }

        if configuration.exitWithParent { watchParent() }
        let readyFile = configuration.readyFile
        let app = Application(
            router: router,
            server: BoxSimHTTPChannel.builder(),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port),
                                 serverName: nil),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? configuration.port
                let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
                announce("http://\(host):\(port)", readyFile: readyFile)
            },
            logger: logger
        )
        // Stop promptly on SIGTERM/SIGINT even with long downloads or long polls in flight.
        var serviceConfiguration = ServiceGroupConfiguration(services: [app], gracefulShutdownSignals: [.sigterm, .sigint],
                                                             logger: logger)
        serviceConfiguration.maximumGracefulShutdownDuration = .seconds(2)
        serviceConfiguration.maximumCancellationDuration = .seconds(2)
        try await ServiceGroup(configuration: serviceConfiguration).run()
    }

    /// Polls the parent pid once a second; when it changes (the parent died), sends ourselves SIGTERM.
    static func watchParent() {
        let parent = getppid()
        Task.detached {
            while getppid() == parent { try? await Task.sleep(nanoseconds: 1_000_000_000) }
            kill(getpid(), SIGTERM)
        }
    }

    /// Prints the base URL (one flushed line) and writes it atomically to the ready file.
    static func announce(_ baseURL: String, readyFile: URL?) {
        FileHandle.standardOutput.write(Data((baseURL + "\n").utf8))
        guard let readyFile else { return }
        let temporary = readyFile.deletingLastPathComponent()
            .appendingPathComponent(".\(readyFile.lastPathComponent).\(getpid()).tmp")
        do {
            try Data((baseURL + "\n").utf8).write(to: temporary)
            if rename(temporary.path, readyFile.path) != 0 { throw BlobStoreError.io(readyFile.path, errno) }
        } catch {
            FileHandle.standardError.write(Data("boxsim: cannot write ready file: \(error)\n".utf8))
        }
    }
}
