import BoxAPI
import Foundation
import Logging
import SystemCalls

/// Sends journaled files to Box in the background: one `UploadLifecycle` per entry decides what
/// happens; this actor keeps the clocks, runs the attempts (at most `maxConcurrentUploads` at once)
/// and reports through `events`. It knows no inodes and no FUSE: the core tells it when a file is
/// opened for writing, closed, renamed or deleted, and learns from `events` what Box now holds.
///
/// Its code runs on a thread of its own (`executor`), never on Swift's cooperative pool: nearly every step of it
/// reads or writes the journal, synchronously (a write waits for its group's fsync), and on the pool's two threads
/// one slow sync would stall every task of the mount (FUSE replies waiting on async work, downloads, the event
/// stream). Its attempts run there too (their tasks prefer the executor), so their journal calls do as well; their
/// uploads are awaited there, which holds no thread, and the one long computation, the content's SHA-1, is handed to
/// `Syscall.offThePool` so the uploader answers the core meanwhile.
public actor Uploader {
    /// Runs the uploader's isolated code, and its attempts' tasks (see above).
    nonisolated let executor = DedicatedThreadExecutor(name: "boxfs.uploader")
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    public nonisolated let events: AsyncStream<UploaderEvent>
    let continuation: AsyncStream<UploaderEvent>.Continuation
    let journal: UploadJournal
    let configuration: UploaderConfiguration
    let logger: Logger
    let attempt: UploadAttempt
    let progress = ProgressBoard()
    /// New-file places sent to whose answers the core has not applied yet (what listings must not show).
    public nonisolated let unanswered = UnansweredUploads()
    private let origin = ContinuousClock.now

    var machines: [Int64: UploadLifecycle] = [:]
    var running: [Int64: Task<Void, Never>] = [:]
    /// The folder each running attempt sends to (for `settle`).
    var runningFolders: [Int64: String] = [:]
    var queued: [(id: Int64, target: UploadTarget, generation: Int64)] = []
    var timers: [Int64: Task<Void, Never>] = [:]
    var recentErrors: [UploaderStatus.ErrorRecord] = []
    var isShutDown = false
    var sink: (@Sendable (UploaderEvent) -> Void)?
    /// Awaited before each attempt with the target's folder id (see `setBeforeSending`).
    var beforeSending: (@Sendable (String) async -> Void)?
    /// Items that discarded entries' attempts created anyway, for `discard` to return.
    var landedAfterDiscard: [Int64: BoxItem] = [:]
    /// Entries whose attempts must not start while the core deletes their file on Box (see `hold`).
    var held: Set<Int64> = []
    /// Entries whose files were opened while they waited, the latest opened first: sent before the others.
    var urgent: [Int64] = []

    public init(
        journal: UploadJournal, client: BoxClient, configuration: UploaderConfiguration = UploaderConfiguration(),
        logger: Logger = Logger(label: "boxfs.writeback"), recovery: RecoveryPlace? = nil
    ) {
        self.journal = journal
        self.configuration = configuration
        self.logger = logger
        self.attempt = UploadAttempt(
            client: client, journal: journal, configuration: configuration, progress: progress,
            unanswered: unanswered, logger: logger, recovery: recovery)
        (events, continuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    /// Picks up every entry left in the journal (by a crash, a kill or an unmount that timed out):
    /// their writers are gone, so they are sent at once. Returns how many were found.
    @discardableResult
    public func start() throws -> Int {
        let pending = try journal.pending()
        for entry in pending where machines[entry.id] == nil {
            machines[entry.id] = UploadLifecycle.recovered(
                target: entry.target, generation: entry.generation, settings: configuration.lifecycleSettings,
                now: now())
            mirrorUnanswered(entry.id)
            logger.debug("resuming", metadata: ["entry": "\(entry.id)", "target": "\(entry.target.logDescription)"])
            apply(entry.id, machines[entry.id]!.handle(.tick(now: now())))
        }
        if !pending.isEmpty { logger.info("resuming \(pending.count) journaled upload(s)") }
        return pending.count
    }

    /// A journaled file is open for writing: nothing is sent until it is closed. The first call for a
    /// new entry takes it over; later calls (a rewrite) bump its generation in the journal. Returns
    /// false when the entry is gone (its upload finished meanwhile): the caller journals anew.
    @discardableResult
    public func fileOpened(_ id: Int64) throws -> Bool {
        if machines[id] == nil {
            guard let entry = try journal.entry(id: id) else { return false }
            machines[id] = UploadLifecycle(
                target: entry.target, generation: entry.generation, isOpen: true,
                settings: configuration.lifecycleSettings)
            return true
        }
        let generation = try journal.bumpGeneration(id: id)
        feed(id, .opened(generation: generation))
        return true
    }

    /// The last writer closed the file; `contentModifiedAt` (the mtime) goes with the upload.
    /// `reopened` is asked here, inside the uploader: true when a writer opened the file after this
    /// close was decided (its `fileOpened` may have come first); the close is then void, and that
    /// writer's own close ends the entry's open state. Returns false when the entry is gone.
    @discardableResult
    public func fileClosed(
        _ id: Int64, contentModifiedAt: Date? = nil, reopened: @Sendable () -> Bool = { false }
    ) throws -> Bool {
        if machines[id] == nil { guard try fileOpened(id) else { return false } }
        if let contentModifiedAt { try journal.setContentModifiedAt(id: id, contentModifiedAt) }
        guard !reopened() else { return true }
        feed(id, .closed(now: now()))
        return true
    }

    /// The file was renamed or moved locally before it reached Box. Returns false when the entry is
    /// gone (already uploaded): the caller must journal the content again for its new place.
    @discardableResult
    public func retarget(_ id: Int64, to target: UploadTarget) throws -> Bool {
        guard machines[id] != nil else { return false }
        try journal.setTarget(id: id, target)
        logger.debug("retargeted", metadata: ["entry": "\(id)", "target": "\(target.logDescription)"])
        feed(id, .retargeted(target))
        return true
    }

    /// Waits for the attempts now sending to `folderID` (landed or not): what they made in the folder is
    /// then known, and reported through the event sink, before the caller looks at the folder on Box again.
    public func settle(folderID: String) async {
        let attempts = runningFolders.filter { $0.value == folderID }.compactMap { running[$0.key] }
        for attempt in attempts { await attempt.value }
    }

    /// Receives every event synchronously, inside the uploader, before the entry can change again:
    /// the core's bookkeeping is never behind the journal. (Call before `start`.)
    public func setEventSink(_ sink: @escaping @Sendable (UploaderEvent) -> Void) {
        self.sink = sink
    }

    /// Something to wait for before an attempt sends to a folder: the core's own cleanups there (an upload
    /// that landed under a name since replaced is being removed), so a new file never meets Box's 409 for a
    /// name the mount is freeing and becomes a conflicted copy. (Call before `start`.)
    public func setBeforeSending(_ hook: @escaping @Sendable (String) async -> Void) {
        beforeSending = hook
    }

    func emit(_ event: UploaderEvent) {
        sink?(event)
        continuation.yield(event)
    }

    /// A chunked upload of the entry still sending parts (its commit cannot be on the wire yet): safe to stop.
    private func isSendingParts(_ id: Int64) -> Bool {
        guard let sent = progress.get(id) else { return false }
        return sent.total >= configuration.chunkedThreshold && sent.done < sent.total
    }

    /// The core is about to delete the entry's file on Box: no attempt may run meanwhile, or it would meet the
    /// deletion (404), take it for someone else's, and send the content up again as a new file. Waits for an
    /// attempt under way (a large one still sending parts is stopped, and sent again if the entry is
    /// released); what it landed is reported as usual before this returns. End with `release` or `discard`.
    public func hold(_ id: Int64) async {
        held.insert(id)
        guard let attempt = running[id] else { return }
        if isSendingParts(id) {
            attempt.cancel()
        }
        await attempt.value
    }

    /// The deletion `hold` made way for did not happen: the entry goes on as before.
    public func release(_ id: Int64) {
        guard held.remove(id) != nil else { return }
        startQueued()
        feed(id, .tick(now: now()))
    }

    /// The file was deleted (or replaced) locally before it reached Box: the entry is dropped. A
    /// running attempt is waited for (a large one cancelled first); if it landed, the item it made is
    /// returned (and also reported through `events`, as final), so the core can delete or use it.
    @discardableResult
    public func discard(_ id: Int64) async throws -> BoxItem? {
        let attempt = running[id]
        // An upload that may already be stored by Box (a direct one, or a session whose parts are all
        // sent, so its commit may be on the wire) is let finish, so what it made is known and can be
        // removed or built on; a session still sending parts is stopped before it can commit.
        if isSendingParts(id) {
            attempt?.cancel()
        }
        timers.removeValue(forKey: id)?.cancel()
        queued.removeAll { $0.id == id }
        held.remove(id)
        urgent.removeAll { $0 == id }
        machines.removeValue(forKey: id)
        progress.remove(id)
        // Places sent to without an answer (and what was sent), read before the entry (and they) leave the journal.
        let (places, digests) = unansweredSends(id)
        try journal.remove(id: id)
        await attempt?.value
        // Listings hide what the entry's unanswered attempts may have made until that has been looked for and
        // reported (the core then hides a leftover it removes).
        defer { unanswered.drop(id) }
        if let landed = landedAfterDiscard.removeValue(forKey: id) { return landed }
        // An attempt's code, which reads the journal: on this thread, not in the caller's task on the pool.
        let leftBehind = await withTaskExecutorPreference(executor) {
            await self.attempt.leftBehind(entryID: id, places: places, digests: digests)
        }
        guard let (stray, place) = leftBehind else { return nil }
        logger.info("an attempt whose answer was lost stored \"\(place.name)\"; its file is gone here",
                    metadata: ["file": "\(stray.id)"])
        // Reported as a new file that landed for an entry no file has any more: the core removes it.
        emit(.uploaded(entryID: id, item: stray, target: .newFile(parentID: place.parentID, name: place.name),
                       stagingPath: "", isFinal: true))
        return stray
    }

    /// Tries every parked or backing-off upload now (`boxfs retry`, or a new token); returns how many.
    @discardableResult
    public func retryNow() -> Int {
        let due = sendingOrder(machines.filter { _, machine in
            switch machine.phase {
            case .parked, .retrying: !machine.isOpen
            default: false
            }
        }.keys)
        if !due.isEmpty { logger.notice("trying \(due.count) waiting upload(s) again now") }
        for id in due { feed(id, .drain(now: now())) }
        return due.count
    }

    /// Sends everything now (skipping delays; parked entries get one more try) and waits until no
    /// upload is under way or `timeout` has passed. Returns the entries still pending, which stay
    /// journaled for the next start.
    public func drain(timeout: Duration) async -> Int {
        for id in sendingOrder(machines.keys) { feed(id, .drain(now: now())) }
        let deadline = ContinuousClock.now + timeout
        while machines.values.contains(where: \.isActive), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(50))
        }
        if !machines.isEmpty { logger.warning("\(machines.count) upload(s) still pending; they stay journaled") }
        return machines.count
    }

    /// Stops all work; pending entries stay in the journal. Ends `events`.
    public func shutdown() {
        isShutDown = true
        for task in running.values { task.cancel() }
        for task in timers.values { task.cancel() }
        running = [:]
        timers = [:]
        queued = []
        continuation.finish()
    }

    /// Seconds on a monotonic clock since this uploader was made.
    func now() -> Double {
        let elapsed = ContinuousClock.now - origin
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// Sets the entry's unanswered places as the journal has them: after an attempt's answer was reported (the core
    /// knows the file that landed now, so listings no longer need to hide it), or on start.
    func mirrorUnanswered(_ id: Int64) {
        let (places, digests) = unansweredSends(id)
        unanswered.mirror(id, places: places, digests: digests)
    }

    /// The places the journal lists for the entry as sent to without an answer, and (if any) the SHA-1s it sent.
    private func unansweredSends(_ id: Int64) -> (places: [SentPlace], digests: Set<String>) {
        let places = (try? journal.sentPlaces(id: id)) ?? []
        return (places, places.isEmpty ? [] : (try? journal.sentDigests(id: id)) ?? [])
    }
}
