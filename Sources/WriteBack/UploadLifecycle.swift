import BoxAPI
import CurlHTTP
import Foundation

/// The life of one dirty file, as a pure value: events in, actions out. No clocks, no I/O: the
/// uploader feeds it the time and the outcome of each attempt and carries out what it returns,
/// so every rule below is unit-tested without a server.
///
/// - Nothing is sent while a writer has the file open; closing starts a `delay` (each newer close
///   restarts it, so a burst of rewrites becomes one upload).
/// - An upload that finishes after the file was written again does not finish the entry: the new
///   content goes up as the next version of the file just created or updated.
/// - Transient failures are retried forever, paced by the client's one `RetryPolicy` (exponential
///   backoff with jitter, `Retry-After` honoured; no attempt limit, no deadline: nothing is dropped).
/// - A change on Box (412) or a taken name (409) turns the upload into a conflicted copy beside
///   the original: nothing on Box is overwritten silently.
/// - A full account, a too-large file or a missing folder parks the entry: it is kept, reported,
///   and retried rarely (`parkInterval`), never in a tight loop and never dropped.
/// - A folder Box confirms gone (the attempt looked at it) ends the entry once its content is kept in the
///   recovery place (`RecoveryPlace`), as an upload that landed does; content written meanwhile is tried again.
public struct UploadLifecycle: Sendable, Equatable {
    public struct Settings: Sendable, Equatable {
        public var delay: Double
        /// Pacing after transient failures (`RetryPolicy.untilDone`).
        public var retry: RetryPolicy
        public var parkInterval: Double

        /// `jitter` 0 makes the waits exact (tests); the uploader passes the policy's usual share.
        public init(
            delay: Double = 2, backoffBase: Double = 1, backoffMax: Double = 300, parkInterval: Double = 900,
            jitter: Double = 0
        ) {
            self.delay = delay
            self.retry = .untilDone(baseDelay: backoffBase, maxDelay: backoffMax, jitter: jitter)
            self.parkInterval = parkInterval
        }
    }

    public enum Phase: Sendable, Equatable {
        /// Open for writing (or nothing to do yet).
        case idle
        /// Closed; the upload starts at `until`.
        case waiting(until: Double)
        /// An attempt for `generation` is running.
        case uploading(generation: Int64)
        /// After a transient failure.
        case retrying(until: Double)
        /// Cannot proceed for now (`reason`); tried again at `until`.
        case parked(until: Double, reason: UploadFailure)
        /// Uploaded; the entry is forgotten.
        case done
    }

    public enum Event: Sendable, Equatable {
        /// Opened for writing again (the journal's generation was bumped to `generation`).
        case opened(generation: Int64)
        case closed(now: Double)
        /// A timer fired (or the uploader looks at the entry again).
        case tick(now: Double)
        /// Unmount: skip remaining delays and backoffs.
        case drain(now: Double)
        /// The core renamed or moved the file before it was uploaded.
        case retargeted(UploadTarget)
        /// Box now holds the content of `generation` as `item`.
        case uploaded(BoxItem, generation: Int64, now: Double)
        /// Box no longer has the target's folder: the content of `generation` is kept at `path` of the recovery place
        /// (`mountPath` is the file's path below the mount).
        case keptAside(path: String, mountPath: String, generation: Int64, now: Double)
        case failed(UploadFailure, now: Double, wallClock: Date)
    }

    public enum Action: Sendable, Equatable {
        /// Feed `.tick` at this time.
        case wake(at: Double)
        case startUpload(UploadTarget, generation: Int64)
        /// Persist the new target in the journal.
        case saveTarget(UploadTarget)
        /// Box has a new item for this entry; `isFinal` when the entry is complete.
        case report(BoxItem, isFinal: Bool)
        /// The content goes up as `copyName` because `original` changed on Box or its name is taken.
        case conflict(original: UploadTarget, copyName: String)
        /// The Box file `original` adds a version to is gone: the content goes up as a new file at its name.
        case recreated(original: UploadTarget)
        /// Record the failure of an attempt that went to `target` (journal attempts, status, log).
        case noteFailure(UploadFailure, target: UploadTarget)
        /// An upload landed as `item`, which the entry no longer targets: it must be deleted from Box.
        case stray(BoxItem)
        /// The content was kept at `path` of the recovery place (its folder is gone from Box); `isFinal` when the
        /// entry is complete (else newer content follows).
        case keptAside(path: String, mountPath: String, isFinal: Bool)
        /// Remove the entry from the journal.
        case forget
    }

    public internal(set) var target: UploadTarget
    public internal(set) var generation: Int64
    public internal(set) var isOpen: Bool
    public internal(set) var phase: Phase
    /// Consecutive failed attempts, for the backoff.
    public internal(set) var failures = 0
    /// Conflicted-copy names tried so far for this content.
    var conflictAttempts = 0
    /// When the first conflict was detected (the copy's name keeps that moment).
    var conflictTime: Date?
    var conflictOriginal: UploadTarget?
    public let settings: Settings

    public init(target: UploadTarget, generation: Int64, isOpen: Bool, settings: Settings) {
        self.target = target
        self.generation = generation
        self.isOpen = isOpen
        self.phase = .idle
        self.settings = settings
    }

    /// An entry found in the journal at start: due at once, as its writer is gone.
    public static func recovered(target: UploadTarget, generation: Int64, settings: Settings, now: Double) -> Self {
        var machine = UploadLifecycle(target: target, generation: generation, isOpen: false, settings: settings)
        machine.phase = .waiting(until: now)
        return machine
    }

    public var isDone: Bool { phase == .done }

    /// Something will happen without outside help: an upload runs or a timer leads to one. False when
    /// open, parked or done, which is what `drain` need not wait for.
    public var isActive: Bool {
        switch phase {
        case .uploading: true
        case .waiting, .retrying: !isOpen
        case .idle, .parked, .done: false
        }
    }

    public mutating func handle(_ event: Event) -> [Action] {
        guard phase != .done else { return [] }
        switch event {
        case .opened(let newGeneration):
            generation = max(generation, newGeneration)
            isOpen = true
            if case .uploading = phase { return [] }
            phase = .idle
            return []
        case .closed(let now):
            isOpen = false
            if case .uploading = phase { return [] }
            return wait(until: now + settings.delay)
        case .tick(let now):
            return due(now: now, force: false)
        case .drain(let now):
            return due(now: now, force: true)
        case .retargeted(let newTarget):
            target = newTarget
            return []
        case .uploaded(let item, let uploadedGeneration, let now):
            return finished(item, generation: uploadedGeneration, now: now)
        case .keptAside(let path, let mountPath, let kept, let now):
            guard case .uploading = phase else { return [] }
            return keptAside(path: path, mountPath: mountPath, generation: kept, now: now)
        case .failed(let failure, let now, let wallClock):
            guard case .uploading = phase else { return [] }
            return failed(failure, now: now, wallClock: wallClock)
        }
    }

    mutating func wait(until time: Double) -> [Action] {
        phase = .waiting(until: time)
        return [.wake(at: time)]
    }

    /// Starts the upload if its time has come (or `force`), else re-arms the timer.
    private mutating func due(now: Double, force: Bool) -> [Action] {
        let until: Double
        switch phase {
        case .waiting(let time), .retrying(let time), .parked(let time, _): until = time
        case .idle, .uploading, .done: return []
        }
        guard !isOpen else { return [] }
        guard force || until <= now else { return [.wake(at: until)] }
        phase = .uploading(generation: generation)
        return [.startUpload(target, generation: generation)]
    }
}
