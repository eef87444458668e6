import Foundation
import GRDB
import Synchronization

/// The journal's writes, committed in groups: every write submitted while a commit is syncing joins the
/// next one, so a burst of changes (the creates of a `cp -r`, the closes and finished uploads around
/// them) costs one fsync of the WAL, not one each, and no write waits for more than the commit under
/// way plus its own.
///
/// Durability is unchanged: a write returns only after the transaction holding it committed
/// (`synchronous=FULL`: the WAL is fsync'd). Each write runs in a savepoint of its group's
/// transaction, so one that fails (a constraint) leaves the others in; a commit that fails (a full
/// disk) fails every write of its group, as it would have failed each alone.
///
/// Commits run on a thread of their own (`queue`), never on a FUSE thread or Swift's cooperative pool:
/// `write(_:) async` suspends while its group commits; the synchronous `write(_:)` (for callers already
/// off the pool, or tests) blocks its thread as one SQLite write would.
final class GroupCommit: Sendable {
    /// A write waiting for its group. Its closures run on `queue` while their submitter waits for
    /// `finish` (hence `@unchecked`: each is called once, by the queue, and nothing else touches them).
    private struct Job: @unchecked Sendable {
        /// Runs the write in the group's transaction (in a savepoint), keeping its own outcome.
        let apply: (Database) -> Void
        /// The group's commit ended (nil: committed).
        let finish: (WriteBackError?) -> Void
    }

    private let database: DatabasePool
    private let queue = DispatchQueue(label: "boxfs.journal.commit", qos: .userInitiated)
    /// Writes submitted and not yet taken by a commit; whether the queue is draining them.
    private let state = Mutex<(jobs: [Job], draining: Bool)>(([], false))
    private let commitCount = Atomic<Int>(0)
    /// Set by `end`: nothing more is written (what a killed process would write, it never does).
    private let ended = Atomic<Bool>(false)

    init(database: DatabasePool) {
        self.database = database
    }

    /// From now on every write fails without touching the file; a group already committing finishes.
    func end() { ended.store(true, ordering: .sequentiallyConsistent) }

    var isEnded: Bool { ended.load(ordering: .sequentiallyConsistent) }

    /// Transactions committed so far (tests: writes submitted together share one).
    var commits: Int { commitCount.load(ordering: .relaxed) }

    /// Runs `body` in the next group commit; returns once it is durable.
    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let outcome = Mutex<Result<T, any Error>?>(nil)
            submit(Job(
                apply: { db in outcome.withLock { $0 = Self.run(body, in: db) } },
                finish: { failure in
                    if let failure { return continuation.resume(throwing: failure) }
                    continuation.resume(with: outcome.withLock { $0 } ?? .failure(WriteBackError("journal write lost")))
                }))
        }
    }

    /// Runs `body` in the next group commit, blocking the calling thread until it is durable.
    func write<T>(_ body: @escaping (Database) throws -> T) throws -> T {
        nonisolated(unsafe) var outcome: Result<T, any Error>?
        nonisolated(unsafe) var failure: WriteBackError?
        let done = DispatchSemaphore(value: 0)
        submit(Job(
            apply: { db in outcome = Self.run(body, in: db) },
            finish: { error in
                failure = error
                done.signal()
            }))
        done.wait()
        if let failure { throw failure }
        return try (outcome ?? .failure(WriteBackError("journal write lost"))).get()
    }

    private static func run<T>(_ body: (Database) throws -> T, in db: Database) -> Result<T, any Error> {
        var value: T?
        do {
            try db.inSavepoint {
                value = try body(db)
                return .commit
            }
            guard let value else { return .failure(WriteBackError("journal write gave no result")) }
            return .success(value)
        } catch {
            return .failure(WriteBackError("journal write failed: \(error)", diskFull: Self.isDiskFull(error)))
        }
    }

    private func submit(_ job: Job) {
        let starts = state.withLock { state -> Bool in
            state.jobs.append(job)
            defer { state.draining = true }
            return !state.draining
        }
        if starts { queue.async { [self] in drain() } }
    }

    /// Commits what was submitted, group after group, until nothing waits.
    private func drain() {
        while true {
            let group = state.withLock { state -> [Job] in
                defer { state.jobs = [] }
                if state.jobs.isEmpty { state.draining = false }
                return state.jobs
            }
            guard !group.isEmpty else { return }
            if isEnded {
                group.forEach { $0.finish(WriteBackError("the journal was closed")) }
                continue
            }
            do {
                try database.write { db in group.forEach { $0.apply(db) } }
                commitCount.add(1, ordering: .relaxed)
                group.forEach { $0.finish(nil) }
            } catch {
                let failure = WriteBackError("journal write failed: \(error)", diskFull: Self.isDiskFull(error))
                group.forEach { $0.finish(failure) }
            }
        }
    }

    static func isDiskFull(_ error: any Error) -> Bool {
        (error as? DatabaseError)?.resultCode == .SQLITE_FULL
    }
}
