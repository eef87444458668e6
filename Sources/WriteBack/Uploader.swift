import BoxAPI
import Foundation
import Logging

/// Sends journaled files to Box in the background: one `UploadLifecycle` per entry decides what
/// happens; this actor keeps the clocks, runs the attempts (at most `maxConcurrentUploads` at once)
/// and reports through `events`. It knows no inodes and no FUSE: the core tells it when a file is
/// opened for writing, closed, renamed or deleted, and learns from `events` what Box now holds.
public actor Uploader {
    public nonisolated let events: AsyncStream<UploaderEvent>
    let continuation: AsyncStream<UploaderEvent>.Continuation
    let journal: UploadJournal
    let configuration: UploaderConfiguration
    let logger: Logger
    let attempt: UploadAttempt
    let progress = ProgressBoard()
    private let origin = ContinuousClock.now

    var machines: [Int64: UploadLifecycle] = [:]
    var running: [Int64: Task<Void, Never>] = [:]
    var queued: [(id: Int64, target: UploadTarget, generation: Int64)] = []
    var timers: [Int64: Task<Void, Never>] = [:]
    var recentErrors: [UploaderStatus.ErrorRecord] = []
    var isShutDown = false

    public init(
        journal: UploadJournal, client: BoxClient, configuration: UploaderConfiguration = UploaderConfiguration(),
        logger: Logger = Logger(label: "boxfs.writeback")
    ) {
        self.journal = journal
        self.configuration = configuration
        self.logger = logger
        self.attempt = UploadAttempt(
            client: client, journal: journal, configuration: configuration, progress: progress, logger: logger)
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
            apply(entry.id, machines[entry.id]!.handle(.tick(now: now())))
        }
        if !pending.isEmpty { logger.info("resuming \(pending.count) journaled upload(s)") }
        return pending.count
    }

    /// A journaled file is open for writing: nothing is sent until it is closed. The first call for a
    /// new entry takes it over; later calls (a rewrite) bump its generation in the journal.
    public func fileOpened(_ id: Int64) throws {
        if machines[id] == nil {
            guard let entry = try journal.entry(id: id) else { throw WriteBackError("no journal entry \(id)") }
            machines[id] = UploadLifecycle(
                target: entry.target, generation: entry.generation, isOpen: true,
                settings: configuration.lifecycleSettings)
            return
        }
        let generation = try journal.bumpGeneration(id: id)
        feed(id, .opened(generation: generation))
    }

    /// The last writer closed the file; `contentModifiedAt` (the mtime) goes with the upload.
    public func fileClosed(_ id: Int64, contentModifiedAt: Date? = nil) throws {
        if let contentModifiedAt { try journal.setContentModifiedAt(id: id, contentModifiedAt) }
        if machines[id] == nil { try fileOpened(id) }
        feed(id, .closed(now: now()))
    }

    /// The file was renamed or moved locally before it reached Box.
    public func retarget(_ id: Int64, to target: UploadTarget) throws {
        try journal.setTarget(id: id, target)
        feed(id, .retargeted(target))
    }

    /// The file was deleted locally before it reached Box: the entry is dropped. A running attempt is
    /// cancelled; if it lands anyway, `events` still reports the item (final), so the core can delete it.
    public func discard(_ id: Int64) throws {
        running[id]?.cancel()
        timers.removeValue(forKey: id)?.cancel()
        queued.removeAll { $0.id == id }
        machines.removeValue(forKey: id)
        progress.remove(id)
        try journal.remove(id: id)
    }

    /// Sends everything now (skipping delays; parked entries get one more try) and waits until no
    /// upload is under way or `timeout` has passed. Returns the entries still pending, which stay
    /// journaled for the next start.
    public func drain(timeout: Duration) async -> Int {
        for id in machines.keys { feed(id, .drain(now: now())) }
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
}
