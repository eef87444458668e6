import BoxAPI
import Foundation
import Logging
import Synchronization
import Transfers

/// Keeps pinned items on this machine (`boxfs pin`): every file of a pinned folder, at any depth, and every pinned
/// file, downloaded whole in the background, checked against Box's SHA-1, and never evicted.
///
/// The pin set is durable (`PinSet`, one JSON file). A *pass* walks each pin on Box (its folders listed again, not
/// the mount's cached listings, so what Box has now), pins every file found in the disk cache (`BlockCache+Pins`:
/// its blocks leave the evictable cache for the pinned budget), unpins the files no pin covers any more (moved
/// out, deleted, unpinned), then fetches each file whose current version is not all on disk and verified,
/// `filesAtOnce` at a time, through the read path's whole-file check (`BlockStore.fetchWhole`). Every Box call and download of
/// a pass is background work (`CallPriority.background`): what a user waits on goes first under Box's rate limits.
///
/// A pass runs at start, after each pin or unpin, whenever the event stream reports a change to a file or folder
/// a pin covers, or a new item in such a folder (`noticeChanges`), and every `rescanInterval` anyway (a server
/// without events). Passes never overlap; wake-ups during one coalesce into one more. A pin whose walk fails
/// (Box out of reach) keeps what its last walk found: its files stay pinned and readable offline.
///
/// Locking: `state` is a lock of its own, taken alone (never under the core's state lock, never across an await).
final class Pinner: Sendable {
    /// A file a pin covers, as its pin's last walk found it.
    struct Tracked: Sendable, Equatable {
        var pinID: String
        var file: RemoteFile
        /// Below the mount's root, as shown.
        var path: String
    }

    /// What a pin's walk found.
    struct Walk: Sendable {
        var files: [Tracked] = []
        var folderIDs: [String] = []
    }

    /// The progress of one pin, or of all of them.
    struct Progress: Sendable, Equatable {
        var files = 0
        var filesDone = 0
        var bytes: Int64 = 0
        var bytesDone: Int64 = 0
    }

    struct State {
        var set: PinSet
        /// Every file the pins cover, by Box file id (a file two pins cover counts for the first).
        var files: [String: Tracked] = [:]
        /// Every folder the pinned folders hold, themselves included: Box folder id → pin id.
        var folders: [String: String] = [:]
        /// The files each pin covers (a file two pins cover is in both).
        var covered: [String: Set<String>] = [:]
        /// Files whose current version is on disk and verified (`id~version`).
        var done: Set<String> = []
        /// The file being fetched now (its path), if any.
        var fetching: String?
        /// The last failure of a walk or a fetch, one line (nil once a pass ends without one).
        var lastError: String?
        /// Per pin: why its last walk or a fetch of one of its files failed.
        var pinErrors: [String: String] = [:]
        /// Passes in a row in which a walk or a fetch failed (not a pin whose item Box no longer has).
        var failingPasses = 0
    }

    static let rescanInterval: Duration = .seconds(600)
    /// After a pass in which a walk or a fetch failed (Box out of reach, wrong bytes), the next pass comes this soon,
    /// twice as late after each such pass in a row, up to `rescanInterval`.
    static let retryDelay: Duration = .seconds(5)

    let file: URL
    let store: BlockStore
    let client: BoxClient
    let logger: Logger
    let state: Mutex<State>
    private let wakes: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation
    private let tasks = Mutex<[Task<Void, Never>]>([])
    /// Held while the disk cache's pins are brought in line with `state` (a pass) or changed with it (`add`,
    /// `remove`), so a pass that read the tracked files before a pin was added never unpins that pin's files.
    /// Taken before `state`.
    private let cachePins = Mutex(())
    /// Lists a folder for a walk and keeps the listing in the mount's tree (`FileSystem.fetchAndStoreListing`),
    /// set once the mount starts; without it, straight from Box.
    let lister = Mutex<(@Sendable (String) async throws -> [BoxItem])?>(nil)

    init(file: URL, store: BlockStore, client: BoxClient, logger: Logger) {
        self.file = file
        self.store = store
        self.client = client
        self.logger = logger
        var set = PinSet()
        do { set = try PinSet.load(from: file) } catch {
            logger.error("the pin set \(file.path) could not be read (\(error)); starting with no pins, the file is kept as .bad")
            try? FileManager.default.moveItem(atPath: file.path, toPath: file.path + ".bad")
        }
        state = Mutex(State(set: set))
        (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    static func key(_ file: RemoteFile) -> String { file.id + "~" + file.version }

    // MARK: Running

    /// Starts the passes: one now, then as woken and every `rescanInterval`.
    func start() {
        let runner = Task { [self] in
            for await _ in wakes {
                if Task.isCancelled { break }
                await pass()
            }
        }
        let timer = Task { [self] in
            while !Task.isCancelled {
                guard (try? await Task.sleep(for: Self.rescanInterval)) != nil else { return }
                wake.yield()
            }
        }
        tasks.withLock { $0 = [runner, timer] }
        wake.yield()
    }

    func stop() {
        wake.finish()
        tasks.withLock { tasks in
            tasks.forEach { $0.cancel() }
            tasks = []
        }
    }

    /// Asks for a pass (coalesced with one asked for already).
    func wakeUp() { wake.yield() }

    /// Changes the event stream reported: a pass when one touches what a pin covers.
    func noticeChanges(_ items: [BoxItem]) {
        let relevant = state.withLock { state in
            guard !state.set.pins.isEmpty else { return false }
            return items.contains { item in
                state.files[item.id] != nil || state.folders[item.id] != nil
                    || state.set.pins.contains { $0.id == item.id }
                    || item.parentID.map { state.folders[$0] != nil } ?? false
            }
        }
        if relevant { wakeUp() }
    }

    /// One pass: walk every pin, pin and unpin in the disk cache, fetch what is missing.
    func pass() async {
        let pins = state.withLock { $0.set.pins }
        var found: [String: Tracked] = [:]
        var folders: [String: String] = [:]
        var covered: [String: Set<String>] = [:]
        var failed: Set<String> = []
        var errors: [String: String] = [:]
        for pin in pins {
            do {
                let walk = try await CallPriority.background { try await self.walk(pin) }
                for tracked in walk.files where found[tracked.file.id] == nil { found[tracked.file.id] = tracked }
                for id in walk.folderIDs where folders[id] == nil { folders[id] = pin.id }
                covered[pin.id] = Set(walk.files.map(\.file.id))
            } catch let error as BoxAPIError where error.kind == .notFound {
                errors[pin.id] = "\(Self.shown(pin.path)): no longer on Box"
            } catch {
                failed.insert(pin.id)
                errors[pin.id] = "\(Self.shown(pin.path)): \(Self.oneLine(error))"
            }
        }
        let walked = Set(pins.map(\.id))
        state.withLock { state in
            let live = Set(state.set.pins.map(\.id))
            // Pins not walked by this pass (pinned meanwhile) and pins whose walk failed keep what they had.
            for (id, tracked) in state.files where (!walked.contains(tracked.pinID) || failed.contains(tracked.pinID)) && found[id] == nil {
                found[id] = tracked
            }
            for (id, pin) in state.folders where !walked.contains(pin) || failed.contains(pin) { folders[id] = folders[id] ?? pin }
            for (pin, files) in state.covered where !walked.contains(pin) || failed.contains(pin) { covered[pin] = files }
            state.covered = covered.filter { live.contains($0.key) }
            state.files = found.filter { live.contains($0.value.pinID) }
            state.folders = folders.filter { live.contains($0.value) }
            state.pinErrors = errors.filter { live.contains($0.key) }
            state.lastError = state.pinErrors.values.sorted().first
        }
        reconcileCache()
        let fetchFailed = await fetchMissing()
        let failing = state.withLock { state in
            state.failingPasses = failed.isEmpty && !fetchFailed ? 0 : state.failingPasses + 1
            return state.failingPasses
        }
        if failing > 0 {
            let delay = min(Self.retryDelay * (1 << min(failing - 1, 10)), Self.rescanInterval)
            Task { [weak self] in
                guard (try? await Task.sleep(for: delay)) != nil else { return }
                self?.wakeUp()
            }
        }
    }

    /// Pins every tracked file in the disk cache and unpins the rest.
    func reconcileCache() {
        cachePins.withLock { _ in
            let tracked = state.withLock { Set($0.files.keys) }
            for id in tracked { store.pin(fileID: id) }
            for id in store.pinnedFileIDs where !tracked.contains(id) { store.unpin(fileID: id) }
        }
    }

    /// Files fetched at once: one file's download, hashed and written as it arrives, leaves the link idle between
    /// its ranges; three keep it busy (a pin of 1 GiB in 16 files: 0.41 of curl's speed one at a time) while
    /// leaving most connections to what a user waits on.
    static let filesAtOnce = 3

    /// Fetches every tracked file whose current version is not on disk and verified, `filesAtOnce` at a time, in
    /// path order; answers whether a fetch failed.
    private func fetchMissing() async -> Bool {
        let files = state.withLock { $0.files.values.sorted { $0.path < $1.path } }
        return await withTaskGroup(of: Bool.self) { group in
            var anyFailed = false, running = 0
            for tracked in files {
                if Task.isCancelled { break }
                if running == Self.filesAtOnce, let failed = await group.next() {
                    running -= 1
                    anyFailed = anyFailed || failed
                }
                group.addTask { await self.fetch(tracked) }
                running += 1
            }
            for await failed in group { anyFailed = anyFailed || failed }
            state.withLock { $0.fetching = nil }
            return anyFailed
        }
    }

    /// Fetches one tracked file unless it is done, gone from the pins or already whole; answers whether it failed.
    private func fetch(_ tracked: Tracked) async -> Bool {
        let key = Self.key(tracked.file)
        let wanted = state.withLock { state in state.files[tracked.file.id] == tracked && !state.done.contains(key) }
        guard wanted, !Task.isCancelled else { return false }
        if store.isComplete(tracked.file) {
            _ = state.withLock { $0.done.insert(key) }
            return false
        }
        state.withLock { $0.fetching = tracked.path }
        do {
            try await CallPriority.background { try await self.store.fetchWhole(tracked.file) }
            _ = state.withLock { $0.done.insert(key) }
            logger.debug("pinned file \(tracked.path) is on this machine, verified")
            return false
        } catch {
            let line = "\(Self.shown(tracked.path)): \(Self.oneLine(error))"
            logger.warning("pinned file not kept: \(line)")
            state.withLock { state in
                state.lastError = line
                state.pinErrors[tracked.pinID] = line
            }
            return true
        }
    }

    /// What `pin` covers on Box now: every file below it (or itself), and every folder (itself included).
    func walk(_ pin: PinSet.Pin) async throws -> Walk {
        var walk = Walk()
        if pin.kind == "file" {
            let item = try await client.file(id: pin.id)
            walk.files.append(Tracked(pinID: pin.id, file: Self.remote(item), path: pin.path))
            return walk
        }
        var queue: [(id: String, path: String)] = [(pin.id, pin.path)]
        while let next = queue.popLast() {
            let (folderID, path) = next
            try Task.checkCancellation()
            walk.folderIDs.append(folderID)
            let items: [BoxItem]
            if let list = lister.withLock({ $0 }) { items = try await list(folderID) } else {
                items = try await client.folderItems(id: folderID)
            }
            for item in items {
                let itemPath = path.isEmpty ? item.name : path + "/" + item.name
                switch item.kind {
                case .file: walk.files.append(Tracked(pinID: pin.id, file: Self.remote(item), path: itemPath))
                case .folder: queue.append((item.id, itemPath))
                default: continue
                }
            }
        }
        return walk
    }

    static func remote(_ item: BoxItem) -> RemoteFile {
        RemoteFile(id: item.id, version: item.contentVersion, size: max(item.size, 0), sha1: item.sha1)
    }

    // MARK: Changing the set

    /// Adds `pin` with what its walk found, durably; its files are pinned in the disk cache at once and
    /// fetched by the next pass.
    func add(_ pin: PinSet.Pin, _ walk: Walk) throws {
        try cachePins.withLock { _ in try addAndPin(pin, walk) }
        wakeUp()
    }

    private func addAndPin(_ pin: PinSet.Pin, _ walk: Walk) throws {
        try state.withLock { state in
            var set = state.set
            set.pins.removeAll { $0.id == pin.id }
            set.pins.append(pin)
            try set.save(to: file)
            state.set = set
            for tracked in walk.files where state.files[tracked.file.id] == nil { state.files[tracked.file.id] = tracked }
            for id in walk.folderIDs where state.folders[id] == nil { state.folders[id] = pin.id }
            state.covered[pin.id] = Set(walk.files.map(\.file.id))
        }
        for tracked in walk.files { store.pin(fileID: tracked.file.id) }
    }

    /// Removes the pin of `id`, durably; its files become ordinary cache at once. Nil when `id` is not pinned.
    func remove(_ id: String) throws -> PinSet.Pin? {
        let pin = try cachePins.withLock { _ in try removeAndUnpin(id) }
        if pin != nil { wakeUp() }  // another pin may cover some of its files
        return pin
    }

    private func removeAndUnpin(_ id: String) throws -> PinSet.Pin? {
        let released = try state.withLock { state -> (PinSet.Pin, [String])? in
            guard let pin = state.set.pins.first(where: { $0.id == id }) else { return nil }
            var set = state.set
            set.pins.removeAll { $0.id == id }
            try set.save(to: file)
            state.set = set
            let mine = state.covered.removeValue(forKey: id) ?? []
            let others = state.covered.values.reduce(into: Set<String>()) { $0.formUnion($1) }
            let files = mine.subtracting(others)
            files.forEach { state.files[$0] = nil }
            // A file another pin covers too stays, as that pin's.
            for (fileID, tracked) in state.files where tracked.pinID == id {
                if let other = state.covered.first(where: { $0.value.contains(fileID) })?.key {
                    state.files[fileID]?.pinID = other
                } else {
                    state.files[fileID] = nil
                }
            }
            state.folders = state.folders.filter { $0.value != id }
            state.pinErrors[id] = nil
            if state.pinErrors.isEmpty { state.lastError = nil }
            return (pin, Array(files))
        }
        guard case let (pin, files)? = released else { return nil }
        for id in files { store.unpin(fileID: id) }
        return pin
    }

    // MARK: Questions

    func pin(_ id: String) -> PinSet.Pin? { state.withLock { $0.set.pins.first { $0.id == id } } }

    /// The pin that covers the item (its own, or its folder's), if any.
    func coveringPin(ofItem id: String) -> PinSet.Pin? {
        state.withLock { state in
            let pinID = state.set.pins.contains { $0.id == id } ? id : state.files[id]?.pinID ?? state.folders[id]
            return pinID.flatMap { pinID in state.set.pins.first { $0.id == pinID } }
        }
    }

    func progress(of pinID: String?) -> Progress {
        state.withLock { state in
            var progress = Progress()
            let ids = pinID.map { state.covered[$0] ?? [] } ?? Set(state.files.keys)
            for id in ids {
                guard let tracked = state.files[id] else { continue }
                progress.files += 1
                progress.bytes += tracked.file.size
                if state.done.contains(Self.key(tracked.file)) {
                    progress.filesDone += 1
                    progress.bytesDone += tracked.file.size
                }
            }
            return progress
        }
    }

    /// Disk bytes the tracked files not on disk yet will take.
    func bytesStillToFetch() -> Int64 {
        let files = state.withLock { state in state.files.values.filter { !state.done.contains(Self.key($0.file)) } }
        return files.reduce(0) { $0 + store.diskBytes(of: $1.file) }
    }

    static func shown(_ path: String) -> String { "/" + path }

    static func oneLine(_ error: any Error) -> String {
        String(describing: error).split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}
