import Foundation
import Logging
import Synchronization

/// Paces one Box account's calls under Box's limits before they are sent (`BoxClient.execute`): each call
/// takes a token of every limit it counts against (`PacedLimit.counted`) from the account's buckets, shared
/// with the other processes pacing the account through a `PacingStateFile` (in memory when there is none).
///
/// A call that finds no token waits with an async sleep (never a thread or a lock) until the first one it
/// needs comes back, then tries again; a background call also waits while a foreground call of this process
/// waits for the same limit, so the foreground one takes the next token. `waiting` says how many calls
/// wait and for which limit (`boxfs status`).
public final class Pacer: Sendable {
    public let limits: PacingLimits
    private let file: PacingStateFile?
    private let memory = Mutex(PacingState())
    private let clock: @Sendable () -> Double
    private let waiters = Mutex(Waiters())
    private let logger: Logger

    struct Waiters {
        /// Calls waiting, by the limit they wait for.
        var byLimit: [PacedLimit: Int] = [:]
        /// Foreground calls waiting, by every limit they need.
        var foreground: [PacedLimit: Int] = [:]
    }

    /// A pacer whose buckets are in `file` (nil: this process's memory only). `clock` answers seconds
    /// since 1970 (the wall clock: processes share it).
    public init(
        limits: PacingLimits, file: PacingStateFile?, logger: Logger = Logger(label: "boxfs.pacing"),
        clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }
    ) {
        self.limits = limits
        self.file = file
        self.clock = clock
        self.logger = logger
    }

    /// Waits until a call counted against `paced` may be sent, and takes its tokens.
    public func acquire(_ paced: [PacedLimit], priority: CallPriority) async throws {
        let active = paced.filter { limits[$0] > 0 }
        guard !active.isEmpty else { return }
        var waitingFor: PacedLimit?
        defer { if let waitingFor { leave(waitingFor, active, priority) } }
        while true {
            try Task.checkCancellation()
            let wait: Double
            if priority == .background, foregroundWaits(for: active) {
                wait = 0.02
                if waitingFor == nil {
                    waitingFor = active[0]
                    enter(active[0], active, priority)
                }
            } else {
                switch take(active, priority: priority) {
                case .taken: return
                case .busy: wait = 0.001
                case .wait(let seconds, let limit):
                    wait = seconds
                    if waitingFor == nil {
                        waitingFor = limit
                        enter(limit, active, priority)
                    }
                }
            }
            // At most a second at a time: another process may have returned what it did not use, or the clock moved.
            try await Task.sleep(nanoseconds: UInt64(min(max(wait, 0.001), 1) * 1_000_000_000))
        }
    }

    /// Counts a call made before the pacer could pace it (the mount's first, which tells whose account it is).
    public func charge(_ paced: [PacedLimit]) async {
        let now = clock()
        let limits = self.limits
        if let file {
            // Tried a few times; a call not counted costs at most one 429, which the retry policy waits out.
            var tries = 0
            while file.update({ $0.record(paced, limits: limits, now: now) }) == nil, tries < 100 {
                tries += 1
                try? await Task.sleep(nanoseconds: 1_000_000)
            }
        } else {
            memory.withLock { $0.record(paced, limits: limits, now: now) }
        }
    }

    /// Calls waiting now, by the limit they wait for.
    public var waiting: [PacedLimit: Int] {
        waiters.withLock { $0.byLimit.filter { $0.value > 0 } }
    }

    private enum Attempt {
        case taken
        /// Another process holds the file's lock.
        case busy
        case wait(Double, PacedLimit)
    }

    private func take(_ active: [PacedLimit], priority: CallPriority) -> Attempt {
        let now = clock()
        let limits = self.limits
        let decide = { (state: inout PacingState) -> Attempt in
            guard let seconds = state.take(active, limits: limits, priority: priority, now: now) else { return .taken }
            // Named after the limit that is short (the one waited for longest).
            let short = active.max { a, b in
                (state.bucket(a, limits: limits).wait(now: now, priority: priority) ?? 0)
                    < (state.bucket(b, limits: limits).wait(now: now, priority: priority) ?? 0)
            } ?? active[0]
            return .wait(seconds, short)
        }
        if let file { return file.update(decide) ?? .busy }
        return memory.withLock { decide(&$0) }
    }

    private func foregroundWaits(for active: [PacedLimit]) -> Bool {
        waiters.withLock { waiters in active.contains { waiters.foreground[$0, default: 0] > 0 } }
    }

    private func enter(_ limit: PacedLimit, _ active: [PacedLimit], _ priority: CallPriority) {
        waiters.withLock { waiters in
            waiters.byLimit[limit, default: 0] += 1
            if priority == .foreground { for each in active { waiters.foreground[each, default: 0] += 1 } }
        }
    }

    private func leave(_ limit: PacedLimit, _ active: [PacedLimit], _ priority: CallPriority) {
        waiters.withLock { waiters in
            waiters.byLimit[limit, default: 0] -= 1
            if priority == .foreground { for each in active { waiters.foreground[each, default: 0] -= 1 } }
        }
    }
}
