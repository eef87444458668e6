import BoxTestSupport
import Dispatch
import Foundation
import Glibc
import Synchronization

/// Where the mount first differed from the model.
struct Divergence: Sendable, CustomStringConvertible {
    enum Kind: String, Sendable {
        case op, mountTree = "mount tree", boxTree = "Box tree", lister, hang, mount
        /// The in-process core made a synchronous journal call from a task on Swift's cooperative pool (debug builds).
        case journalOnThePool = "journal on the pool"
    }
    var kind: Kind
    /// The step that diverged (nil for checks between steps and at the end).
    var step: Int?
    var message: String

    /// For an operation: its name and what the mount answered (`pread`, `errno 5`).
    var operation: String?

    /// What the shrinker keeps failing for: the kind, and for an operation its name and the mount's answer.
    var signature: String {
        guard kind == .op, let operation else { return kind.rawValue }
        return "op \(operation)"
    }

    var description: String { "\(kind.rawValue) divergence\(step.map { " at step \($0)" } ?? ""): \(message)" }
}

/// Runs async set-up (boxsim's start) from the run's own thread, never from Swift's task pool.
func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let result = Mutex<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        let outcome: Result<T, any Error>
        do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
        result.withLock { $0 = outcome }
        done.signal()
    }
    done.wait()
    return try result.withLock { $0! }.get()
}

/// One thread's model and its open descriptors. Touched by one thread at a time: the run's thread between
/// stretches, the worker thread during one; the DispatchGroup wait at the end of a stretch orders the two.
final class ThreadState: @unchecked Sendable {
    var model = FileModel()
    /// The offline periods' bookkeeping (`OfflineBook`).
    var offline = OfflineBook()
    let executor: SyscallExecutor
    var divergence: Divergence?
    var executed = 0
    init(root: String) { executor = SyscallExecutor(root: root) }
}

/// One run of a step list against a fresh boxsim and a real mount, comparing with the model after every
/// operation, the whole mounted tree after every stretch, and Box's tree once uploads settle (after every
/// remount and at the end). Synchronous: it blocks the calling thread, which must not be in Swift's task pool.
final class ModelRun {
    let settings: ModelSettings
    let steps: [Step]
    private(set) var executed = 0
    var sim: BoxSimProcess?
    var fixture: MountFixture?
    /// In front of boxsim for the mount when offline periods are on: cut and restored by `Step.cut`, `Step.restore`.
    var proxy: CuttableProxy?
    /// The network is cut (`Step.cut`).
    var cut = false
    private var mounts = 0
    private let work: URL
    var states: [ThreadState] = []

    init(steps: [Step], settings: ModelSettings) {
        self.steps = steps
        self.settings = settings
        work = FileManager.default.temporaryDirectory.appendingPathComponent("boxfs-model-\(UUID().uuidString)")
    }

    private var cacheDirectory: URL { work.appendingPathComponent("cache") }
    private var logFile: URL { work.appendingPathComponent("boxfs-\(mounts).log") }

    /// Runs every step; answers the first divergence (nil when the mount kept to the model throughout).
    func run() throws -> Divergence? {
        try FileManager.default.createDirectory(at: cacheDirectory, withIntermediateDirectories: true)
        defer {
            for state in states { state.executor.closeAll() }
            try? proxy?.restore()
            fixture?.unmount()
            proxy?.stop()
            sim?.stop()
            try? FileManager.default.removeItem(at: work)
        }
        let sim = try blocking { try await BoxSimProcess.start() }
        self.sim = sim
        if settings.mix.offline { proxy = try CuttableProxy(sim) }
        if let failure = mount() { return failure }
        let root = try XCTUnwrapMount()
        // The threads' own folders exist before the faults start.
        for thread in 0..<settings.mix.threads {
            guard Glibc.mkdir(root + "/t\(thread)", 0o755) == 0 else {
                throw ModelRunError(description: "mkdir t\(thread): \(String(cString: strerror(Glibc.errno)))")
            }
            states.append(ThreadState(root: root + "/t\(thread)"))
        }
        let api = BoxSimAPI(sim)
        for rule in settings.faultRules {
            try api.addFault(try JSONSerialization.jsonObject(with: Data(rule.utf8)) as? [String: Any] ?? [:])
        }

        var index = 0
        while index < steps.count {
            if steps[index].isGlobal {
                if let failure = between(steps[index], at: index, api) { return withLog(failure) }
                index += 1
                continue
            }
            var end = index
            while end < steps.count, !steps[end].isGlobal { end += 1 }
            if let failure = stretch(index..<end) { return withLog(failure) }
            if let failure = checkMountedTree() { return withLog(failure) }
            index = end
        }
        if cut, let failure = restoreNetwork(at: steps.count, api) { return withLog(failure) }
        for state in states {
            state.executor.closeAll()
            state.model.closeAll()
        }
        return settle(api).map(withLog)
    }

    private func XCTUnwrapMount() throws -> String {
        guard let fixture else { throw ModelRunError(description: "not mounted") }
        return fixture.mountpoint.path
    }

    private func mount() -> Divergence? {
        mounts += 1
        do {
            let fixture = try MountFixture.mount(
                try sim.unwrap(),
                options: ["write_back_delay=0", "cache_dir=\(cacheDirectory.path)", "log_file=\(logFile.path)"]
                    + settings.mountOptions,
                endpoint: proxy?.baseURL)
            self.fixture = fixture
            for (thread, state) in states.enumerated() {
                state.executor.root = fixture.mountpoint.path + "/t\(thread)"
            }
            return nil
        } catch {
            return Divergence(kind: .mount, message: "mount failed: \(error)")
        }
    }

    /// The last lines of the daemon's log, appended to a divergence.
    private func withLog(_ divergence: Divergence) -> Divergence {
        var divergence = divergence
        if let keep = ProcessInfo.processInfo.environment["BOXFS_MODEL_KEEP_LOGS"], !keep.isEmpty {
            // Every mount's whole log, for a divergence the last lines do not explain.
            let folder = URL(fileURLWithPath: keep).appendingPathComponent(work.lastPathComponent)
            try? FileManager.default.copyItem(at: work, to: folder)
            try? FileManager.default.removeItem(at: folder.appendingPathComponent("cache"))
            if let sim {
                try? FileManager.default.copyItem(at: sim.dataDirectory.appendingPathComponent("requests.jsonl"),
                                                  to: folder.appendingPathComponent("boxsim-requests.jsonl"))
            }
            divergence.message += "\n  daemon logs kept in \(folder.path)"
        }
        let text = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
        let tail = text.split(separator: "\n").suffix(25).joined(separator: "\n")
        if !tail.isEmpty { divergence.message += "\n  daemon log (last lines):\n" + tail }
        return divergence
    }

    /// Each thread runs its operations of `range` in order, all threads at once, listers walking meanwhile.
    private func stretch(_ range: Range<Int>) -> Divergence? {
        let group = DispatchGroup()
        let stop = Atomic<Bool>(false)
        let listerFailure = Mutex<Divergence?>(nil)
        let root = fixture?.mountpoint.path ?? ""
        for (thread, state) in states.enumerated() {
            let mine = range.compactMap { index -> (Int, Op)? in
                if case .op(thread, let op) = steps[index] { return (index, op) }
                return nil
            }
            guard !mine.isEmpty else { continue }
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                for (index, op) in mine {
                    let actual = state.executor.run(op)
                    state.executed += 1
                    if let divergence = Self.judge(op, actual, thread: thread, model: &state.model, offline: &state.offline, index: index) {
                        state.divergence = divergence
                        return
                    }
                }
            }
        }
        let listers = DispatchGroup()
        let cut = self.cut
        for _ in 0..<settings.listers {
            listers.enter()
            Thread.detachNewThread {
                defer { listers.leave() }
                while !stop.load(ordering: .relaxed) {
                    if let failure = Self.walkForErrors(root, whileCut: cut) {
                        listerFailure.withLock { $0 = $0 ?? failure }
                        return
                    }
                }
            }
        }
        let finished = group.wait(timeout: .now() + settings.segmentSeconds) == .success
        stop.store(true, ordering: .relaxed)
        if !finished {
            // Free the stuck system calls so the threads end, then report where they were.
            if let path = fixture?.mountpoint.path { for pid in MountFixture.daemonPIDs(for: path) { kill(pid, SIGKILL) } }
            _ = group.wait(timeout: .now() + 30)
            _ = listers.wait(timeout: .now() + 30)
            return Divergence(kind: .hang, step: range.lowerBound,
                              message: "steps \(range) did not finish within \(Int(settings.segmentSeconds)) s")
        }
        _ = listers.wait(timeout: .now() + 60)
        executed += states.reduce(0) { $0 + $1.executed }
        for state in states { state.executed = 0 }
        let failures = states.compactMap(\.divergence).sorted { ($0.step ?? 0) < ($1.step ?? 0) }
        return failures.first ?? listerFailure.withLock { $0 }
    }

    static func explain(_ op: Op, _ thread: Int, _ expected: Outcome, _ actual: Outcome) -> String {
        var text = "\(op) (t\(thread)): model \(expected), mount \(actual)"
        if let want = expected.text, let got = actual.text, want != got { text += "\n    model: \(want)\n    mount: \(got)" }
        if let want = expected.bytes, let got = actual.bytes, want != got {
            text += "; " + Outcome.firstDifference(want, got)
        }
        return text
    }

    /// A lister's walk (`readdir` + `fstatat` of everything): entries vanish under it (ENOENT), nothing else fails;
    /// while cut, a folder whose listing the mount does not hold fails with EIO (docs/SEMANTICS.md "Offline").
    static func walkForErrors(_ root: String, whileCut: Bool = false) -> Divergence? {
        var pending = [root]
        while let folder = pending.popLast() {
            switch SyscallExecutor.list(folder) {
            case .failure(let error):
                if error.code == ENOENT || error.code == ENOTDIR || (whileCut && error.code == EIO) { continue }
                return Divergence(kind: .lister, message: "listing \(folder): errno \(error.code) (\(String(cString: strerror(error.code))))")
            case .success(let entries):
                pending += entries.filter(\.isFolder).map { folder + "/" + $0.name }
            }
        }
        return nil
    }

    /// The whole mounted tree equals the models' (with `extra`, the conflicted copies expected after a restore);
    /// while cut, the files whose content is not on this machine must fail with EIO.
    func checkMountedTree(extra: [String: String] = [:]) -> Divergence? {
        guard let root = fixture?.mountpoint.path else { return nil }
        var expected = Manifest.of(states.map(\.model)).merging(extra) { $1 }
        if cut { expected.merge(unreadableWhileCut()) { $1 } }
        switch SyscallExecutor.walk(root, reads: cut ? .allowingUnreadable : .all) {
        case .failure(let error):
            return Divergence(kind: .mountTree, message: "walking the mount\(cut ? " while cut" : ""): errno \(error.code) (\(String(cString: strerror(error.code))))")
        case .success(let tree):
            let actual = Manifest.withoutConflictDates(tree)
            guard actual == expected else {
                return Divergence(kind: .mountTree, message: "the mounted tree differs from the model\(cut ? " while cut" : ""):\n"
                                  + Manifest.diff(expected: expected, actual: actual))
            }
            if !cut { for state in states { state.offline.notHere = [] } }
            return nil
        }
    }

    /// A step between the threads' stretches: a remount or a kill (then the tree on Box must settle to the model).
    private func between(_ step: Step, at index: Int, _ api: BoxSimAPI) -> Divergence? {
        switch step {
        case .remount, .killAndRemount:
            // A mount's start needs Box: the network comes back first (a shrunk list may have lost the restore).
            if cut, let failure = restoreNetwork(at: index, api) { return failure }
            if let failure = global(step, at: index) { return failure }
            return settle(api)
        case .op:
            return nil
        case .cut:
            return cut ? nil : cutNetwork(at: index, api)
        case .restore:
            return cut ? restoreNetwork(at: index, api) : nil
        case .remote(let thread, let op):
            return thread < states.count ? changeElsewhere(op, thread: thread, at: index, api) : nil
        }
    }

    /// Closes every handle, then unmounts (or kills the daemon) and mounts again with the same cache folder.
    private func global(_ step: Step, at index: Int) -> Divergence? {
        for state in states {
            state.executor.closeAll()
            state.model.closeAll()
        }
        guard let fixture else { return nil }
        let path = fixture.mountpoint.path
        if step == .killAndRemount {
            for pid in MountFixture.daemonPIDs(for: path) { kill(pid, SIGKILL) }
            guard waitForNoDaemon(path, seconds: 10) else {
                return Divergence(kind: .hang, step: index, message: "the killed daemon did not go away")
            }
            _ = try? Shell.run(["fusermount3", "-u", "-z", path], timeout: 20)
        } else {
            let result = try? Shell.run(["fusermount3", "-u", path], timeout: 60)
            guard result?.succeeded == true else {
                return Divergence(kind: .mount, step: index, message: "unmount failed: \(result?.stderr ?? "")")
            }
            // Unmounting sends what is pending first (at most upload_wait, 30 s by default).
            guard waitForNoDaemon(path, seconds: 60) else {
                return Divergence(kind: .hang, step: index, message: "the daemon did not exit within 60 s of the unmount")
            }
        }
        fixture.unmount()
        self.fixture = nil
        return mount()
    }

    private func waitForNoDaemon(_ path: String, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !MountFixture.daemonPIDs(for: path).isEmpty {
            if Date() > deadline { return false }
            usleep(50_000)
        }
        return true
    }

    /// Waits until the mount shows nothing pending (its `.boxfs\status`) and Box's tree equals the model (with
    /// `extra`, the conflicted copies expected after a restore), and checks the mounted tree too (`checkingMount`;
    /// `converging`: again until the same deadline, the mount taking a moment longer than Box after a restore).
    func settle(_ api: BoxSimAPI, extra: [String: String] = [:], checkingMount: Bool = true, converging: Bool = false) -> Divergence? {
        let expected = Manifest.of(states.map(\.model)).merging(extra) { $1 }
        let deadline = Date().addingTimeInterval(settings.settleSeconds)
        var box: [String: String] = [:]
        var status = ""
        while true {
            status = fixture.map { Self.status($0.mountpoint.path) } ?? "not mounted"
            if status.hasPrefix("idle"), let tree = try? Self.boxManifest(api) {
                box = tree
                if box == expected {
                    guard checkingMount else { return nil }
                    let failure = checkMountedTree(extra: extra)
                    if failure == nil || !converging || Date() > deadline { return failure }
                    usleep(300_000)
                    continue
                }
            }
            if Date() > deadline { break }
            usleep(300_000)
        }
        if box.isEmpty, let tree = try? Self.boxManifest(api) { box = tree }
        return Divergence(kind: .boxTree, message: "after \(Int(settings.settleSeconds)) s Box still differs from the model"
                          + " (status: \(status)):\n" + Manifest.diff(expected: expected, actual: box))
    }

    /// `idle` when the status file lists nothing pending or uploading, else what it says.
    static func status(_ mountpoint: String) -> String {
        let fd = Glibc.open(mountpoint + "/.boxfs\\status", O_RDONLY)
        guard fd >= 0 else { return "unreadable: errno \(Glibc.errno)" }
        defer { Glibc.close(fd) }
        let bytes = SyscallExecutor.readAll(fd, from: 0, upTo: 1 << 20).bytes ?? []
        guard let json = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else { return "unparsable" }
        let pending = (json["pending"] as? NSNumber)?.intValue ?? -1
        let uploading = (json["uploading"] as? NSNumber)?.intValue ?? -1
        return pending == 0 && uploading == 0 ? "idle" : "\(pending) pending, \(uploading) uploading"
    }

    static func boxManifest(_ api: BoxSimAPI) throws -> [String: String] {
        Manifest.withoutConflictDates(try api.tree().mapValues { $0.isFolder ? Manifest.folder : "\($0.size) sha1=\($0.sha1 ?? "?")" })
    }
}

struct ModelRunError: Error, CustomStringConvertible { let description: String }

extension Optional {
    func unwrap() throws -> Wrapped {
        guard let self else { throw ModelRunError(description: "missing value") }
        return self
    }
}
