import BlockCache
import BoxAPI
import BoxAuth
import BoxFS
import CurlHTTP
import FakeBox
import Foundation
import Logging
import Synchronization
import SystemCalls
import Transfers
import WriteBack

/// One run of a step list against the filesystem core in-process: the real `FileSystem` (tree, local files,
/// journal, uploader, block store) over a `FakeBox`, with no FUSE, no boxsim process and no socket. Compared with
/// the same `FileModel` as the real-mount tier after every operation, the core's whole tree after every stretch,
/// and Box's tree once uploads settle (after every remount and at the end).
///
/// Operations of a stretch run one after another in step order (`concurrent == false`: a failing seed replays
/// the same operations in the same order), or each thread's in a task of its own, all at once.
final class CoreModelRun: @unchecked Sendable {
    let steps: [Step]
    let threads: Int
    let faults: FakeBoxFaults
    let concurrent: Bool
    /// Operations one after another, each after the uploads the last one started have landed (or wait for a
    /// handle's close): no background work races the next operation, so a seed replays the same requests.
    let quiet: Bool
    let seed: UInt64
    private let executedCount = Atomic<Int>(0)
    var executed: Int { executedCount.load(ordering: .relaxed) }
    private(set) var box: FakeBox
    private let work: URL
    private let log = RingLog()
    private var core: FileSystem?
    private var writeBack: WriteBackContext?
    private var connection: FakeBoxConnection?
    private var diskCache: BlockCache?
    /// Mounts made so far: each keeps a tree on disk of its own (`tree-N.sqlite`).
    private var mounts = 0
    /// One per thread, each touched only by the task running that thread's operations (or between stretches).
    private var threadStates: [CoreThread] = []
    private var executors: [CoreExecutor] { threadStates.map(\.executor) }
    /// Longest wait, in seconds, for uploads to settle.
    var settleSeconds = 30.0
    /// `write_back_delay` of the mounts: 0 in the random runs; a scenario holds uploads back with more.
    private var writeBackDelay = 0.0
    /// Faults a scenario's mount sets once it has its root, before its uploader starts (`killAndRemount`).
    private var faultsOnceMounted: FakeBoxFaults?
    /// What the journals of the run's mounts noted as called on the cooperative pool (see `journalCallsOnThePool`).
    private let poolCalls = Mutex<Set<String>>([])

    init(steps: [Step], threads: Int, faults: FakeBoxFaults, concurrent: Bool, quiet: Bool = false, seed: UInt64) {
        self.steps = steps
        self.threads = threads
        self.faults = faults
        self.concurrent = concurrent
        self.quiet = quiet && !concurrent
        self.seed = seed
        box = FakeBox(seed: seed)
        // Memory-backed when there is one: the journal's fsyncs then cost nothing.
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? URL(fileURLWithPath: "/dev/shm")
            : FileManager.default.temporaryDirectory
        work = base.appendingPathComponent("boxfs-core-model-\(UUID().uuidString)")
    }

    func run() async throws -> Divergence? {
        defer { try? FileManager.default.removeItem(at: work) }
        _ = try await start()
        box.setFaults(faults)
        let divergence = await runSteps()
        await unmount(kill: false)
        if divergence == nil, let unknown = box.unknownRoutes.first {
            return Divergence(kind: .op, message: "the core made a request the fake does not serve: \(unknown)")
        }
        if divergence == nil, let calls = journalCallsOnThePool() { return withLog(calls) }
        return divergence.map(withLog)
    }

    /// The synchronous journal calls the core made from a task on Swift's cooperative pool, where each stalls every
    /// task of the mount while SQLite syncs (the journal notes them in debug builds).
    func journalCallsOnThePool() -> Divergence? {
        let calls = poolCalls.withLock { $0 }
        guard !calls.isEmpty else { return nil }
        return Divergence(kind: .journalOnThePool,
                          message: "journal calls made on the cooperative pool: \(calls.sorted().joined(separator: ", "))")
    }

    // MARK: Scenarios

    /// Starts a core with its thread folders and hands out the threads' executors (`run` drives them through the
    /// steps; a scenario drives them itself).
    func start() async throws -> [CoreExecutor] {
        try FileManager.default.createDirectory(at: work.appendingPathComponent("writeback/staging"),
                                                withIntermediateDirectories: true)
        try await mount()
        for thread in 0..<threads {
            _ = try await core!.makeDirectory(parent: FileSystem.rootInode, name: "t\(thread)")
            threadStates.append(CoreThread(executor: CoreExecutor(core: core!, folder: "t\(thread)")))
        }
        return executors
    }

    /// Unmounts (what is pending is sent first; for a `kill`, nothing more reaches Box or the journal) and mounts
    /// again, with uploads held back `writeBackDelay` seconds; `beforeMounting` runs while no core is mounted.
    func remount(writeBackDelay: Double, kill: Bool = false, beforeMounting: (() async -> Void)? = nil) async throws {
        await unmount(kill: kill)
        await beforeMounting?()
        self.writeBackDelay = writeBackDelay
        try await mount()
        for executor in executors { executor.core = core! }
    }

    /// Kills the core (nothing pending is sent) and mounts again; from the moment the new core has its root on, Box
    /// answers with `faults` (`errorRate: 1`: Box fails every request, as when it cannot be reached).
    func killAndRemount(faults: FakeBoxFaults) async throws {
        for executor in executors { await executor.closeAll() }
        await unmount(kill: true)
        faultsOnceMounted = faults
        defer { faultsOnceMounted = nil }
        try await mount()
        for executor in executors { executor.core = core! }
    }

    /// Ends the scenario: sends what is pending, and removes the run's folder.
    func stop() async {
        await unmount(kill: false)
        try? FileManager.default.removeItem(at: work)
    }

    /// Waits until nothing is being uploaded or due.
    func settled() async { await uploadsSettled() }

    /// Waits (`seconds` at most) until the journal holds nothing; answers how many entries are left.
    func pendingSettled(seconds: Double = 5) async -> Int {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while true {
            let pending = await writeBack?.uploader.status().pendingCount ?? 0
            if pending == 0 || ContinuousClock.now > deadline { return pending }
            try? await Task.sleep(for: .milliseconds(1))
        }
    }

    /// The files on Box under `folder` (a path from the root, e.g. `t0`): path to content.
    func boxFiles(under folder: String) -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        for (path, item) in box.snapshot.tree() where item.kind == .file && path.hasPrefix(folder + "/") {
            files[String(path.dropFirst(folder.count + 1))] = item.content
        }
        return files
    }

    private func runSteps() async -> Divergence? {
        var index = 0
        while index < steps.count {
            if steps[index].isGlobal {
                if let failure = await global(steps[index], at: index) { return failure }
                if let failure = await settle() { return failure }
                index += 1
                continue
            }
            var end = index
            while end < steps.count, !steps[end].isGlobal { end += 1 }
            if let failure = await stretch(index..<end) { return failure }
            if let failure = await checkCoreTree() { return failure }
            index = end
        }
        for state in threadStates {
            await state.executor.closeAll()
            state.model.closeAll()
        }
        return await settle()
    }

    private func withLog(_ divergence: Divergence) -> Divergence {
        var divergence = divergence
        let tail = log.lines.suffix(25).joined(separator: "\n")
        if !tail.isEmpty { divergence.message += "\n  core log (last lines):\n" + tail }
        return divergence
    }

    // MARK: Operations

    private func stretch(_ range: Range<Int>) async -> Divergence? {
        if !concurrent {
            for index in range {
                guard case .op(let thread, let op) = steps[index] else { continue }
                if let failure = await runOne(op, thread: thread, index: index) { return failure }
                if quiet { await uploadsSettled() }
            }
            return nil
        }
        let failures = await withTaskGroup(of: Divergence?.self) { group -> [Divergence] in
            for thread in 0..<threads {
                let mine = range.compactMap { index -> (Int, Op)? in
                    if case .op(thread, let op) = steps[index] { return (index, op) }
                    return nil
                }
                group.addTask {
                    for (index, op) in mine {
                        if let failure = await self.runOne(op, thread: thread, index: index) { return failure }
                    }
                    return nil
                }
            }
            var found: [Divergence] = []
            for await failure in group { if let failure { found.append(failure) } }
            return found
        }
        return failures.min { ($0.step ?? 0) < ($1.step ?? 0) }
    }

    /// Runs one operation and checks it against the thread's model. Each thread's state is touched only by the
    /// task running that thread's operations.
    private func runOne(_ op: Op, thread: Int, index: Int) async -> Divergence? {
        let state = threadStates[thread]
        let actual = await state.executor.run(op)
        let expected = state.model.apply(op)
        executedCount.add(1, ordering: .relaxed)
        guard actual != expected else { return nil }
        let name = op.description.split(separator: " ").first.map(String.init) ?? ""
        let answer = actual.errno == 0 ? "wrong result" : actual.description
        return Divergence(kind: .op, step: index, message: ModelRun.explain(op, thread, expected, actual),
                          operation: "\(name) \(answer)")
    }

    /// Waits (10 s at most) until no upload is due, under way or waiting to be tried again: each entry left is a
    /// file still open for writing.
    private func uploadsSettled() async {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            let states = await writeBack?.uploader.status().entries.map(\.state) ?? []
            if states.allSatisfy({ $0 == "writing" || $0 == "parked" }) { return }
            try? await Task.sleep(for: .milliseconds(1))
        }
    }

    private func checkCoreTree() async -> Divergence? {
        let expected = Manifest.of(threadStates.map(\.model))
        var actual: [String: String] = [:]
        for (thread, executor) in executors.enumerated() {
            actual["t\(thread)/"] = Manifest.folder
            switch await executor.walk(prefix: "t\(thread)/") {
            case .failure(let error):
                return Divergence(kind: .mountTree, message: "walking t\(thread) in the core: errno \(error.code)")
            case .success(let tree): actual.merge(tree) { $1 }
            }
        }
        guard actual != expected else { return nil }
        return Divergence(kind: .mountTree, message: "the core's tree differs from the model:\n"
                          + Manifest.diff(expected: expected, actual: actual))
    }

    /// Waits until nothing is pending and Box's tree equals the model, then checks the core's tree too.
    private func settle() async -> Divergence? {
        let expected = Manifest.of(threadStates.map(\.model))
        let deadline = ContinuousClock.now + .seconds(settleSeconds)
        var actual: [String: String] = [:]
        var pending = -1
        while true {
            pending = await writeBack?.uploader.status().pendingCount ?? 0
            if pending == 0 {
                actual = Self.manifest(box.snapshot)
                if actual == expected { return await checkCoreTree() }
            }
            if ContinuousClock.now > deadline { break }
            try? await Task.sleep(for: .milliseconds(2))
        }
        actual = Self.manifest(box.snapshot)
        return Divergence(kind: .boxTree, message: "after \(Int(settleSeconds)) s Box still differs from the model"
                          + " (\(pending) pending):\n" + Manifest.diff(expected: expected, actual: actual))
    }

    static func manifest(_ state: FakeBoxState) -> [String: String] {
        state.tree().mapValues { item in
            item.kind == .folder ? Manifest.folder : "\(item.content.count) sha1=\(Manifest.sha1(item.content))"
        }
    }

    // MARK: Mounts

    /// Closes every handle, then ends the core (sending what is pending, or, for a kill, stopping at once) and
    /// starts a new one over the same journal, staging folder and block cache.
    private func global(_ step: Step, at index: Int) async -> Divergence? {
        for state in threadStates {
            await state.executor.closeAll()
            state.model.closeAll()
        }
        await unmount(kill: step == .killAndRemount)
        do { try await mount() } catch {
            return Divergence(kind: .mount, step: index, message: "mount failed: \(error)")
        }
        for executor in executors { executor.core = core! }
        return nil
    }

    private func unmount(kill: Bool) async {
        guard let core, let writeBack else { return }
        core.stopDiskTree()
        defer { poolCalls.withLock { $0.formUnion(writeBack.journal.callsOnThePool) } }
        if kill {
            // Nothing more reaches Box or the journal from the killed core (its tasks may still be running): what
            // it was doing ends in a transport or journal error, as a killed process writes nothing after it dies.
            connection?.sever()
            await writeBack.uploader.shutdown()
            writeBack.journal.close()
        } else {
            _ = await core.finishUploads(timeout: .seconds(settleSeconds))
        }
        // The core and its uploader hold each other (the uploader's event sink calls the core), which in a
        // daemon lasts as long as the process; here the ended core must go, with its journal's descriptors.
        await writeBack.uploader.setEventSink { _ in }
        await writeBack.uploader.setBeforeSending { _ in }
        connection?.sever()
        self.core = nil
        self.writeBack = nil
    }

    private func mount() async throws {
        let connection = FakeBoxConnection(to: box)
        self.connection = connection
        var logger = Logger(label: "boxfs.core-model") { _ in RingLogHandler(sink: log) }
        logger.logLevel = .info
        let client = BoxClient(
            endpoints: BoxEndpoints(apiBase: FakeBox.apiBase, uploadBase: FakeBox.uploadBase), sender: connection,
            tokens: StaticTokenProvider(token: "fake-token"),
            retryPolicy: RetryPolicy(maxAttempts: 6, baseDelay: 0.001, maxDelay: 0.004, maxTotalWait: 2), logger: logger)
        // The disk cache outlives a remount, as its folder does (a process's cache holds a lock until its last
        // reference goes, and tasks of the ended core may still hold one).
        let cache = try diskCache ?? BlockCache(directory: work.appendingPathComponent("cache"), capacity: 64 << 20, logger: logger)
        diskCache = cache
        let store = BlockStore(disk: cache, blockSize: Int64(BlockCache.defaultBlockSize), memoryCapacity: 16 << 20,
                               logger: logger, client: client, stallTimeout: .seconds(10))
        // Opened off the pool, as the daemon opens it (`WriteBackSetup`): the journal notes calls made on the pool.
        let journalDirectory = work.appendingPathComponent("writeback")
        let journal = try await Syscall.offThePool { () throws in try UploadJournal(directory: journalDirectory) }
        let uploader = Uploader(
            journal: journal, client: client,
            configuration: UploaderConfiguration(writeBackDelay: writeBackDelay, backoffBase: 0.002, backoffMax: 0.02, parkInterval: 0.05),
            logger: logger)
        let writeBack = WriteBackContext(journal: journal, uploader: uploader,
                                         stagingDirectory: work.appendingPathComponent("writeback/staging"))
        let root = try await client.folder(id: FakeBoxState.rootID)
        if let faultsOnceMounted { box.setFaults(faultsOnceMounted) }
        var options = FilesystemOptions(readOnly: false, directoryCacheTTL: .seconds(60))
        // BOXFS_CORE_MODEL_LISTING_BUDGET=4, a budget the scenarios' folders pass at once: listings leave memory all the
        // time and are read back from the tree on disk (`ListingCache`), or listed again with
        // BOXFS_CORE_MODEL_DISKTREE=off (docs/TESTING.md: what it finds).
        let environment = ProcessInfo.processInfo.environment
        if let budget = environment["BOXFS_CORE_MODEL_LISTING_BUDGET"].flatMap(Int.init) {
            options.listingCacheEntries = budget
        }
        mounts += 1
        let keepsTree = environment["BOXFS_CORE_MODEL_DISKTREE"] != "off"
        let diskTree = keepsTree
            ? try await DiskTree.open(path: work.appendingPathComponent("tree-\(mounts).sqlite").path, logger: logger)
            : nil
        let core = FileSystem(
            client: client, root: root, options: options, store: store, writeBack: writeBack, diskTree: diskTree,
            logger: logger)
        try await core.startWriteBack()
        core.startDiskTree()
        self.core = core
        self.writeBack = writeBack
    }
}

/// One thread's model and executor.
final class CoreThread: @unchecked Sendable {
    var model = FileModel()
    let executor: CoreExecutor
    init(executor: CoreExecutor) { self.executor = executor }
}

/// The last lines the core logged, for a divergence's report.
final class RingLog: Sendable {
    private let state = Mutex<[String]>([])
    func append(_ line: String) {
        state.withLock { lines in
            lines.append(line)
            if lines.count > 200 { lines.removeFirst(lines.count - 100) }
        }
    }
    var lines: [String] { state.withLock { $0 } }
}

struct RingLogHandler: LogHandler {
    let sink: RingLog
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String, file: String,
             function: String, line: UInt) {
        sink.append("\(level) \(message)")
    }
}
