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
    /// The network is cut (`Step.cut`): Box out of reach until `Step.restore`.
    private var cut = false
    /// Events of changes made elsewhere while the network is cut, reported once it is restored.
    private var heldEvents: [BoxEvent] = []

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
        // A run that diverged while cut sends what is pending before it ends, as any other.
        box.setCut(false)
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
                if let failure = await between(steps[index], at: index) { return failure }
                index += 1
                continue
            }
            var end = index
            while end < steps.count, !steps[end].isGlobal { end += 1 }
            if let failure = await stretch(index..<end) { return failure }
            if let failure = await checkCoreTree() { return failure }
            index = end
        }
        if cut, let failure = await restoreNetwork(at: steps.count) { return failure }
        await closeAllHandles()
        return await settle()
    }

    /// A step between the threads' stretches: a remount, a kill, a cut or a restore of the network, a change made
    /// elsewhere.
    private func between(_ step: Step, at index: Int) async -> Divergence? {
        switch step {
        case .op: return nil
        case .remount, .killAndRemount:
            // A mount's start needs Box: the network comes back first (a shrunk list may have lost the restore).
            if cut, let failure = await restoreNetwork(at: index) { return failure }
            if let failure = await global(step, at: index) { return failure }
            return await settle()
        case .cut:
            guard !cut else { return nil }
            return await cutNetwork(at: index)
        case .restore:
            guard cut else { return nil }
            return await restoreNetwork(at: index)
        case .remote(let thread, let op):
            guard thread < threadStates.count else { return nil }
            return await changeElsewhere(op, thread: thread, at: index)
        }
    }

    private func closeAllHandles() async {
        for state in threadStates {
            await state.executor.closeAll()
            state.model.closeAll()
        }
    }

    private func withLog(_ divergence: Divergence) -> Divergence {
        var divergence = divergence
        let tail = log.lines.suffix(ProcessInfo.processInfo.environment["BOXFS_CORE_MODEL_DEBUG"] == nil ? 25 : 150).joined(separator: "\n")
        if !tail.isEmpty { divergence.message += "\n  core log (last lines):\n" + tail }
        return divergence
    }

    // MARK: Operations

    private func stretch(_ range: Range<Int>) async -> Divergence? {
        if !concurrent {
            for index in range {
                guard case .op(let thread, let op) = steps[index] else { continue }
                if let failure = await runOne(op, thread: thread, index: index) { return failure }
                // While cut nothing goes up: there is nothing to wait for.
                if quiet && !cut { await uploadsSettled() }
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
        executedCount.add(1, ordering: .relaxed)
        return ModelRun.judge(op, actual, thread: thread, model: &state.model, offline: &state.offline, index: index)
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

    /// The whole tree as the core shows it equals the model's (with `extra`, the conflicted copies expected after
    /// a restore). Every file is read in full; while cut, a file whose content is not here must fail with EIO.
    /// Once the network is up and every file read, every content is here.
    private func checkCoreTree(extra: [String: String] = [:]) async -> Divergence? {
        var expected = Manifest.of(threadStates.map(\.model)).merging(extra) { $1 }
        if cut { expected.merge(unreadableWhileCut()) { $1 } }
        var actual: [String: String] = [:]
        for (thread, executor) in executors.enumerated() {
            actual["t\(thread)/"] = Manifest.folder
            switch await executor.walk(prefix: "t\(thread)/", reads: cut ? .allowingUnreadable : .all) {
            case .failure(let error):
                return Divergence(kind: .mountTree, message: "walking t\(thread) in the core\(cut ? " while cut" : ""): errno \(error.code)")
            case .success(let tree): actual.merge(tree) { $1 }
            }
        }
        actual = Manifest.withoutConflictDates(actual)
        guard actual != expected else {
            if !cut { for state in threadStates { state.offline.notHere = [] } }
            return nil
        }
        return Divergence(kind: .mountTree, message: "the core's tree differs from the model\(cut ? " while cut" : ""):\n"
                          + Manifest.diff(expected: expected, actual: actual))
    }

    /// Waits until nothing is pending and Box's tree equals the model (with `extra`, the conflicted copies expected
    /// after a restore), then checks the core's tree too (`checkingCore`). `converging`: the core's tree may take a
    /// moment longer (after a restore, a file renamed away offline stays hidden until its removal from Box is tried
    /// again); it is checked again until the same deadline.
    private func settle(extra: [String: String] = [:], checkingCore: Bool = true, converging: Bool = false) async -> Divergence? {
        let expected = Manifest.of(threadStates.map(\.model)).merging(extra) { $1 }
        let deadline = ContinuousClock.now + .seconds(settleSeconds)
        var actual: [String: String] = [:]
        var pending = -1
        while true {
            pending = await writeBack?.uploader.status().pendingCount ?? 0
            if pending == 0 {
                actual = Self.manifest(box.snapshot)
                if actual == expected {
                    guard checkingCore else { return nil }
                    let failure = await checkCoreTree(extra: extra)
                    if failure == nil || !converging || ContinuousClock.now > deadline { return failure }
                    try? await Task.sleep(for: .milliseconds(50))
                    continue
                }
            }
            if ContinuousClock.now > deadline { break }
            try? await Task.sleep(for: .milliseconds(2))
        }
        actual = Self.manifest(box.snapshot)
        return Divergence(kind: .boxTree, message: "after \(Int(settleSeconds)) s Box still differs from the model"
                          + " (\(pending) pending):\n" + Manifest.diff(expected: expected, actual: actual))
    }

    static func manifest(_ state: FakeBoxState) -> [String: String] {
        Manifest.withoutConflictDates(state.tree().mapValues { item in
            item.kind == .folder ? Manifest.folder : "\(item.content.count) sha1=\(Manifest.sha1(item.content))"
        })
    }

    // MARK: Offline periods and changes made elsewhere

    /// What the walk of a cut must find unreadable: the files whose content is not on this machine.
    private func unreadableWhileCut() -> [String: String] {
        var result: [String: String] = [:]
        for (thread, state) in threadStates.enumerated() {
            for (path, entry) in state.model.entries {
                guard case .file(let id) = entry, state.offline.notHere.contains(id) else { continue }
                result["t\(thread)/" + path] = Manifest.unreadable(size: state.model.contents[id]?.count ?? 0)
            }
        }
        return result
    }

    /// Cuts the network once what is pending has reached Box (so Box holds the model, the start of the period's
    /// bookkeeping). The core's tree is not read here: content the core has not fetched stays not here.
    private func cutNetwork(at index: Int) async -> Divergence? {
        await closeAllHandles()
        if let failure = await settle(checkingCore: false) { return failure }
        for state in threadStates {
            state.offline = OfflineBook(atCut: state.model, notHere: state.offline.notHere)
        }
        box.setCut(true)
        cut = true
        return nil
    }

    /// Restores the network: the events of the changes made elsewhere meanwhile are reported, the queued changes
    /// go up, and the tree on Box and in the core must become the models' with those changes, each change of the
    /// mount that met one made elsewhere beside it as a conflicted copy. The copies are then deleted elsewhere
    /// (so the models need not hold names with dates).
    private func restoreNetwork(at index: Int) async -> Divergence? {
        await closeAllHandles()
        box.setCut(false)
        cut = false
        let events = heldEvents
        heldEvents = []
        if let core, !events.isEmpty { await core.applyRemoteChanges(events) }
        var copies: [String: String] = [:]
        for (thread, state) in threadStates.enumerated() {
            let (model, threadCopies, notHere) = state.offline.reconciled(state.model)
            state.model = model
            state.offline = OfflineBook(notHere: notHere)
            for (path, bytes) in threadCopies {
                copies["t\(thread)/" + path] = Manifest.file(size: bytes.count, bytes)
            }
        }
        if var failure = await settle(extra: copies, converging: true) {
            failure.message = "after the network was restored: " + failure.message
            return failure
        }
        let removals = box.removeConflictedCopies()
        guard let core, !removals.isEmpty else { return nil }
        await core.applyRemoteChanges(removals)
        // A deletion's event drops its folder's listing, and nothing lists it again until it is used: listed now (as
        // `ls` would), so that a cut right after finds it held (a folder whose listing was not kept fails with EIO).
        for (thread, executor) in executors.enumerated() {
            if case .failure(let error) = await executor.walk(prefix: "", reads: .none) {
                return Divergence(kind: .mountTree, step: index,
                                  message: "listing t\(thread) after its conflicted copies were deleted elsewhere: errno \(error.code)")
            }
        }
        return nil
    }

    /// Someone else changes Box in a thread's folder: reported to the core at once (its listings then show it), or
    /// once the network is restored. Not made on a file a handle of the thread holds open, nor twice on one path
    /// in one cut; made only where Box allows it.
    private func changeElsewhere(_ op: RemoteOp, thread: Int, at index: Int) async -> Divergence? {
        let state = threadStates[thread]
        let folded = op.path.lowercased()
        if let path = state.model.filePath(folded: folded), let id = state.model.fileID(path),
           state.model.openSlots.contains(where: { state.model.handle($0)?.file == id }) {
            return nil
        }
        if cut {
            guard state.offline.elsewhere[folded] == nil, let made = box.makeElsewhere(op, in: "t\(thread)") else { return nil }
            state.offline.elsewhere[folded] = made.change
            heldEvents.append(made.event)
            return nil
        }
        // Box holds what the mount wrote before someone else changes it (else it would be a conflict by timing).
        await uploadsSettled()
        guard let made = box.makeElsewhere(op, in: "t\(thread)"), let core else { return nil }
        await core.applyRemoteChanges([made.event])
        if let content = made.change.content {
            state.offline.notHere.insert(state.model.changedElsewhere(made.change.path, to: content))
        } else {
            state.model.deletedElsewhere(made.change.path)
        }
        // The thread's listings show the change at once (the files are not read: the new content stays not here).
        var expected: [String: String] = [:]
        for (path, entry) in state.model.entries where !path.isEmpty {
            if case .file(let id) = entry {
                expected[path] = Manifest.listed(size: state.model.contents[id]?.count ?? 0)
            } else {
                expected[path + "/"] = Manifest.folder
            }
        }
        switch await state.executor.walk(prefix: "", reads: .none) {
        case .failure(let error):
            return Divergence(kind: .mountTree, step: index,
                              message: "listing t\(thread) after a change made elsewhere: errno \(error.code)")
        case .success(let actual) where actual != expected:
            return Divergence(kind: .mountTree, step: index,
                              message: "t\(thread)'s listings after a change made elsewhere differ from the model:\n"
                                  + Manifest.diff(expected: expected, actual: actual))
        default:
            return nil
        }
    }

    // MARK: Mounts

    /// Closes every handle, then ends the core (sending what is pending, or, for a kill, stopping at once) and
    /// starts a new one over the same journal, staging folder and block cache.
    private func global(_ step: Step, at index: Int) async -> Divergence? {
        await closeAllHandles()
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
        logger.logLevel = ProcessInfo.processInfo.environment["BOXFS_CORE_MODEL_DEBUG"] == nil ? .info : .debug
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
    /// The offline periods' bookkeeping (`OfflineBook`).
    var offline = OfflineBook()
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
