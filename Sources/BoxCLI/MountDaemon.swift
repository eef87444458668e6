import BoxAPI
import BoxAuth
import BoxFS
import BoxFUSE
import CurlHTTP
import Foundation
import Logging
import SystemCalls

/// The foreground mount: checks the account and the source, mounts, serves until unmounted.
struct MountDaemon {
    let source: MountSource
    let mountpoint: String
    let options: MountOptions
    let logger: Logger
    var logDestination = "stderr"

    /// Runs the mount to its end and returns the process exit status. Errors before the mount is
    /// ready go to the readiness pipe (background mode) or stderr (foreground), as one line.
    func run() async -> Int32 {
        let readiness = ReadinessPipe.inherited()
        signal(SIGPIPE, SIG_IGN)
        CoreDumps.disable()
        MemoryReturn.limitHeaps()
        var endpoint = options.endpoint ?? BoxEndpoints.box.apiBase
        let mount: FUSEMount
        let filesystem: FileSystem
        let stateLock: StateLock?
        let adopted: [AdoptedJournal]
        let follower: EventFollower?
        let offline: String?
        do {
            let waiting = StartupWatch(endpoint: endpoint) { message in
                if let readiness { readiness.progress(message) } else { MountCommand.say(message) }
            }
            defer { waiting.cancel() }
            (mount, filesystem, stateLock, adopted, follower, offline) = try await prepare(
                reportingEndpoint: &endpoint, watch: waiting)
            waiting.cancel()
            let resumed = try await filesystem.startWriteBack()
            if resumed > 0 { logger.notice("finishing \(resumed) upload(s) journaled by an earlier run") }
            try mount.mount()
            stateLock?.say("mounted \(mountpoint)")
        } catch {
            let message = StartupError.describe(error, endpoint: endpoint)
            if let readiness { readiness.fail(message) } else { MountCommand.say(message) }
            return 1
        }
        if options.readAheadKilobytes > 0, geteuid() == 0 {
            let asked = options.readAheadKilobytes
            if let effective = KernelReadAhead.set(kilobytes: asked, mountpoint: mountpoint) {
                if effective != asked {
                    logger.warning("read_ahead_kb=\(asked): the kernel keeps this mount's read-ahead at \(effective) KiB")
                }
            } else {
                logger.warning("could not set the kernel read-ahead of \(mountpoint) to \(asked) KiB")
            }
        }
        if let offline {
            // Box did not answer the start-up check: the mount shows the tree as the last mount left it on disk.
            let line = "mounted \(source.fsname) on \(mountpoint), offline: Box is unreachable (\(offline)); showing the tree as last seen"
            logger.warning("\(line)")
            if let readiness { readiness.progress(line) } else { MountCommand.say(line) }
        }
        readiness?.succeed()
        SystemdNotify.send("READY=1\nSTATUS=mounted \(source.fsname) on \(mountpoint)")
        logger.info("mounted \(source.fsname) on \(mountpoint)")
        let adoptedRuns = adopted.map { journal in Task { await journal.run() } }
        filesystem.startDiskTree()
        follower?.start()
        filesystem.startPinning()
        let status = await serve(mount, ending: { filesystem.closeWatchers() })
        filesystem.stopPinning()
        if await !mount.finish(waitingUpTo: .seconds(5)) {
            logger.warning("requests read before the unmount were still being served after 7 s; not waiting for them")
        }
        logger.info("unmounted \(mountpoint)")
        let leftOpen = await filesystem.closeHandlesLeftOpen()
        if leftOpen > 0 { logger.notice("\(leftOpen) file(s) open for writing had no close when the mount ended; what they hold is sent") }
        await follower?.stop()
        SystemdNotify.send("STOPPING=1\nSTATUS=sending pending uploads")
        stateLock?.say("finishing")
        let wait = Duration.milliseconds(Int(options.uploadWait * 1000))
        adoptedRuns.forEach { $0.cancel() }
        var left = await filesystem.finishUploads(timeout: wait)
        for journal in adopted {
            left += await journal.uploader.drain(timeout: wait)
            await journal.uploader.shutdown()
        }
        if left > 0 {
            logger.warning("\(left) upload(s) still pending; they stay journaled and finish at the next mount")
        }
        await filesystem.finishDiskTree()
        return status
    }

    /// Everything that can fail before the kernel is asked for the mount: token, endpoint, source.
    /// `endpoint` becomes the API base the mount talks to as soon as the account has chosen it (the
    /// `-o endpoint` option, else the profile's), so a failure message names the server really tried.
    private func prepare(reportingEndpoint endpoint: inout String, watch: StartupWatch) async throws
        -> (FUSEMount, FileSystem, StateLock?, [AdoptedJournal], EventFollower?, String?)
    {
        var options = self.options
        if source.isReadOnly { options.readOnly = true }  // shared links: the kernel's `ro` flag
        if let scopes = options.downscope, !scopes.contains(where: { $0 == "root_readwrite" || $0 == "item_upload" }) {
            options.readOnly = true  // a token that cannot write makes a read-only mount, not failing uploads
        }
        // Every request that stops moving (an answer that never comes, a body that stops) fails after
        // stall_timeout and goes to the one retry policy, whose deadline bounds the whole call.
        let http = HTTPClient(configuration: HTTPClientConfiguration(
            timeouts: HTTPTimeouts(lowSpeedTime: .milliseconds(Int(options.stallTimeout * 1000)))))
        let account = try AccountResolver.resolve(options: options, http: http, logger: logger)
        let endpoints = (options.endpoint ?? account.endpoint).map { BoxEndpoints(serverBase: $0) } ?? .box
        endpoint = endpoints.apiBase
        watch.waitingFor(endpoint)
        let tokens = account.tokens
        var client = BoxClient(endpoints: endpoints, http: http, tokens: tokens, logger: logger)
        let asUser = options.asUser ?? account.asUser
        if let asUser { client = client.asUser(asUser) }
        if case .sharedLink(let url) = source {
            guard options.downscope == nil else {
                throw StartupError(description: "downscope cannot be combined with a shared link mount")
            }
            let password = try options.sharedLinkPasswordFile.map(SharedLinkStartup.password(file:))
            client = client.withSharedLink(url: url.absoluteString, password: password)
        } else if options.sharedLinkPasswordFile != nil {
            throw StartupError(
                description: "shared_link_password_file is only for shared link sources (https://…/s/TOKEN)")
        }
        // A quick copy, so a wrong endpoint or token fails the mount within seconds; a transient answer (5xx,
        // 429 with its Retry-After, a lost connection) is still tried again, as for every Box call.
        var quick = RetryPolicy(maxAttempts: 5, maxTotalWait: 8)
        quick.retriesUnreachable = false
        let probe = client.withRetryPolicy(quick)
        let knownAccount = KnownAccount.file(
            options: options, endpoint: endpoints.apiBase, label: account.label, asUser: asUser)
        let user: BoxUser
        // Box unreachable at start: the mount goes on offline with the account and folder a mount last saw.
        var offline: (reason: String, root: BoxItem)?
        do {
            user = try await AuthStartup.checkUser(
                probe, asUser: asUser, rejectedTokenAdvice: account.rejectedTokenAdvice)
            logger.info("signed in to Box as user \(user.id) with \(account.label)")
        } catch let error as BoxAPIError {
            guard case .transport(let detail, _) = error.kind, case .path(let path) = source, options.downscope == nil,
                let known = KnownAccount.read(knownAccount), let root = known.roots[path]?.item
            else { throw error }
            user = known.user
            offline = (detail, root)
            logger.info("Box is unreachable (\(detail)); starting offline as user \(user.id) with \(account.label)")
        }
        // From here every call is paced under Box's limits, with the account's other mounts on this machine.
        client = await PacingSetup.paced(client, options: options, endpoint: endpoints.apiBase, userID: user.id, logger: logger)
        let root: BoxItem
        if let offline {
            root = offline.root
        } else {
            root = try await resolveRoot(probe.withPacer(client.pacer))
            // A file written and renamed: off Swift's cooperative pool.
            if case .path(let path) = source {
                let known = user, mounted = root
                await Syscall.offThePool { KnownAccount.remember(known, root: mounted, path: path, in: knownAccount) }
            }
        }
        if let scopes = options.downscope {
            client = try await AuthStartup.downscoped(
                client, scopes: scopes, root: root, parent: tokens, http: http, asUser: asUser, logger: logger)
        }
        var filesystemOptions = FilesystemOptions(
            uid: options.uid ?? getuid(), gid: options.gid ?? getgid(), readOnly: options.readOnly,
            directoryCacheTTL: .milliseconds(Int(options.directoryCacheTTL * 1000)),
            entryTimeout: options.entryTimeout, attributeTimeout: options.attributeTimeout)
        filesystemOptions.logDestination = logDestination
        filesystemOptions.listingCacheEntries = options.listingCacheEntries
        filesystemOptions.nodeCacheEntries = options.nodeCacheEntries
        filesystemOptions.userID = user.id
        filesystemOptions.webAppBase = endpoints.webAppBase
        filesystemOptions.filePermissions = options.filePermissions
        filesystemOptions.directoryPermissions = options.directoryPermissions
        filesystemOptions.controlDirectoryName = options.controlDirectory
        filesystemOptions.links = options.links
        if options.cacheEnabled {
            // The pin set (`boxfs pin`), beside the block cache it keeps files in: one per mounted folder.
            filesystemOptions.pinFile = CacheLocation.accountDirectory(options: options, endpoint: endpoints.apiBase, userID: user.id)
                .appendingPathComponent("pins-\(root.id).json")
            filesystemOptions.pinBudget = options.pinSizeText
        }
        // Opening the block cache reads every block's entry on the disk (and may trim other caches): off the pool.
        let storeOptions = options, apiBase = endpoints.apiBase, userID = user.id, storeClient = client
        let logger = self.logger
        let store = await Syscall.offThePool {
            ReadPathSetup.makeStore(options: storeOptions, endpoint: apiBase, userID: userID, client: storeClient, logger: logger)
        }
        var writeBack: WriteBackContext?
        var stateLock: StateLock?
        var adopted: [AdoptedJournal] = []
        if !options.readOnly {
            (writeBack, stateLock) = try await WriteBackSetup.make(
                options: options, endpoint: endpoints.apiBase, userID: user.id, rootID: root.id, client: client,
                logger: logger)
            // Opening the other journals waits on SQLite: off Swift's cooperative pool.
            let adopting = options, rootID = root.id, adoptingClient = client
            adopted = await Syscall.offThePool {
                WriteBackSetup.adoptOrphans(
                    options: adopting, endpoint: apiBase, userID: userID, ownRootID: rootID, client: adoptingClient,
                    logger: logger)
            }
        }
        let diskTree = await DiskTreeSetup.open(
            options: options, source: source, endpoint: endpoints.apiBase, userID: user.id, rootID: root.id,
            logger: logger)
        let filesystem = FileSystem(
            client: client, root: root, options: filesystemOptions, store: store, writeBack: writeBack,
            diskTree: diskTree, logger: logger)
        // The account check's answer is the quota the first write is measured against: no call of its own.
        filesystem.knowAccount(user)
        account.tokenFile?.whenNewToken {
            Task { await filesystem.retryUploads() }
        }
        let mount = try FUSEMount(
            filesystem: filesystem, mountpoint: mountpoint, options: options.kernelOptions(fsname: source.fsname),
            debug: false, logger: logger)
        let follower = EventFollowerSetup.make(
            options: options, source: source, endpoint: endpoints.apiBase, userID: user.id, rootID: root.id,
            client: client, filesystem: filesystem, logger: logger)
        if let diskTree {
            let resumesFrom = follower == nil ? nil
                : EventFollowerSetup.positionFile(
                    options: options, endpoint: endpoints.apiBase, userID: user.id, rootID: root.id).read()
            await DiskTreeSetup.load(
                diskTree, into: filesystem, followsEvents: follower != nil, resumesFrom: resumesFrom, logger: logger)
        }
        return (mount, filesystem, stateLock, adopted, follower, offline?.reason)
    }

    private func resolveRoot(_ client: BoxClient) async throws -> BoxItem {
        switch source {
        case .path("/"):
            return try await client.folder(id: "0")
        case .sharedLink:
            return try await SharedLinkStartup.sharedRoot(client, hasPassword: options.sharedLinkPasswordFile != nil)
        case .path(let path):
            let item: BoxItem
            do {
                item = try await client.item(atPath: path)
            } catch let error as BoxAPIError where error.kind == .notFound {
                throw StartupError(description: "box:\(path): no such folder in Box")
            }
            guard item.kind == .folder else { throw StartupError(description: "box:\(path) is a file; mount a folder") }
            return item
        }
    }

    /// Runs libfuse's loop on its own thread (it blocks), and turns SIGTERM/SIGINT/SIGHUP into a clean unmount.
    /// `ending` runs first at a signal (the `boxfs watch` streams end, so their open files hold no connection).
    private func serve(_ mount: FUSEMount, ending: @escaping @Sendable () -> Void) async -> Int32 {
        let signals = [SIGTERM, SIGINT, SIGHUP].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                ending()
                mount.requestUnmount()
            }
            source.resume()
            return source
        }
        defer { signals.forEach { $0.cancel() } }
        let result = await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: mount.run()) }
        }
        return result == 0 ? 0 : 1
    }
}

/// A startup failure with the one line the user sees.
struct StartupError: Error, CustomStringConvertible {
    let description: String

    /// One line, whatever the text it quotes held.
    init(description: String) { self.description = description.oneLine }

    /// One clear line for any error that stops a mount: never a stack trace, never a secret.
    static func describe(_ error: any Error, endpoint: String) -> String {
        guard let api = error as? BoxAPIError else { return "\(error)" }
        switch api.kind {
        case .transport(let detail, _):
            return "cannot reach Box at \(endpoint): \(detail)"
        case .unauthorized:
            return "Box rejected the access token (401 \(api.authError ?? "unauthorized")): get a new token"
        case .forbidden:
            return "Box refused access (403 \(api.code ?? api.authError ?? "forbidden"))"
        case .tokenUnavailable(let detail):
            return detail
        default:
            return api.description
        }
    }
}
