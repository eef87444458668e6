import BoxAPI
import Foundation
import GRDB
import Synchronization
import SystemCalls

/// The durable record of dirty files (SQLite in WAL mode, `synchronous=FULL`: every committed
/// change is fsync'd before the call returns, so it survives `kill -9` and power loss).
///
/// The filesystem core calls `record` before it acknowledges the first write to a file; the
/// uploader reads `pending()` at start and keeps session progress here, so a restart resumes
/// where the last process stopped. Safe to use from any thread. Writes go through `GroupCommit`:
/// those made at the same time share one transaction and one fsync.
///
/// The synchronous calls wait for SQLite (a write for its group's fsync): make them from a thread of your own (the
/// uploader's `DedicatedThreadExecutor`, a queue, `Syscall.offThePool`), never from a task on Swift's cooperative
/// pool, or use the `async` forms. Debug builds keep the names of those made there (`callsOnThePool`).
public final class UploadJournal: Sendable {
    let database: DatabasePool
    let commits: GroupCommit
    public let path: String
    /// Names of the synchronous calls made from a task on the cooperative pool (debug builds; see `callsOnThePool`).
    private let poolCalls = Mutex<Set<String>>([])

    /// Opens (creating if needed) `journal.sqlite` in `directory`.
    public init(directory: URL) throws {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            path = directory.appendingPathComponent("journal.sqlite").path
            var configuration = Configuration()
            configuration.busyMode = .timeout(10)
            configuration.prepareDatabase { db in
                // WAL + FULL: the WAL is fsync'd at every commit (NORMAL would only sync at checkpoints).
                try db.execute(sql: "PRAGMA synchronous = FULL")
            }
            database = try DatabasePool(path: path, configuration: configuration)
            commits = GroupCommit(database: database)
            try JournalSchema.migrator().migrate(database)
            try pruneOwnVersions()
            try pruneLeftovers()
            try pruneFolderPaths()
        } catch {
            throw WriteBackError("cannot open the upload journal in \(directory.path): \(error)")
        }
    }

    /// Records a dirty file; durable when this returns. The entry starts at generation 1.
    @discardableResult
    public func record(stagingPath: String, target: UploadTarget, contentModifiedAt: Date?) throws -> UploadEntry {
        let now = Date()
        let id = try write(Self.insert(stagingPath: stagingPath, target: target, contentModifiedAt: contentModifiedAt, now: now))
        return UploadEntry(
            id: id, stagingPath: stagingPath, target: target, contentModifiedAt: contentModifiedAt, createdAt: now)
    }

    /// Records a dirty file, as `record` does, without holding a thread of the caller's: the task waits
    /// while the commit that takes it (with whatever else was recorded meanwhile) is synced elsewhere.
    @discardableResult
    public func recordGrouped(stagingPath: String, target: UploadTarget, contentModifiedAt: Date?) async throws
        -> UploadEntry
    {
        let now = Date()
        let id = try await commits.write(
            Self.insert(stagingPath: stagingPath, target: target, contentModifiedAt: contentModifiedAt, now: now))
        return UploadEntry(
            id: id, stagingPath: stagingPath, target: target, contentModifiedAt: contentModifiedAt, createdAt: now)
    }

    static func insert(stagingPath: String, target: UploadTarget, contentModifiedAt: Date?, now: Date)
        -> @Sendable (Database) throws -> Int64
    {
        { db in
            try db.execute(
                sql: """
                    INSERT INTO upload (staging_path, parent_id, name, file_id, base_etag, base_sha1,
                        content_modified_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: Self.targetArguments(target, prefix: [stagingPath]) + [
                    contentModifiedAt?.timeIntervalSince1970, now.timeIntervalSince1970, now.timeIntervalSince1970,
                ])
            return db.lastInsertedRowID
        }
    }

    /// Every entry not yet uploaded, oldest first.
    public func pending() throws -> [UploadEntry] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM upload ORDER BY id").map { try Self.entry($0, db: db) }
        }
    }

    public func entry(id: Int64) throws -> UploadEntry? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM upload WHERE id = ?", arguments: [id])
                .map { try Self.entry($0, db: db) }
        }
    }

    /// The pending entry for a staging file, if any (the newest).
    public func entry(stagingPath: String) throws -> UploadEntry? {
        try read { db in
            try Row.fetchOne(
                db, sql: "SELECT * FROM upload WHERE staging_path = ? ORDER BY id DESC LIMIT 1",
                arguments: [stagingPath]
            ).map { try Self.entry($0, db: db) }
        }
    }

    /// The file is being written again: returns the new generation.
    @discardableResult
    public func bumpGeneration(id: Int64) throws -> Int64 {
        try write { db in
            try db.execute(sql: "UPDATE upload SET generation = generation + 1, updated_at = ? WHERE id = ?",
                           arguments: [Date().timeIntervalSince1970, id])
            return try Int64.fetchOne(db, sql: "SELECT generation FROM upload WHERE id = ?", arguments: [id]) ?? 0
        }
    }

    /// Changes where the entry goes (a rename before upload, a conflicted copy, a file that now exists).
    public func setTarget(id: Int64, _ target: UploadTarget) throws {
        try write { db in
            try db.execute(
                sql: """
                    UPDATE upload SET parent_id = ?, name = ?, file_id = ?, base_etag = ?, base_sha1 = ?, updated_at = ?
                    WHERE id = ?
                    """,
                arguments: Self.targetArguments(target, prefix: []) + [Date().timeIntervalSince1970, id])
        }
    }

    public func setContentModifiedAt(id: Int64, _ date: Date?) throws {
        try write { db in
            try db.execute(sql: "UPDATE upload SET content_modified_at = ?, updated_at = ? WHERE id = ?",
                           arguments: [date?.timeIntervalSince1970, Date().timeIntervalSince1970, id])
        }
    }

    /// Sets an entry's content modification time to what `current` answers when the write commits, or leaves it
    /// when `current` answers nil (the entry is no longer the file's). Read at commit, in the journal's own order:
    /// of two racing writes the one that commits last reads the newer time, and no lock of the caller's is held
    /// across the write.
    public func setContentModifiedAt(id: Int64, current: @escaping @Sendable () -> Date??) throws {
        try write { db in
            guard let date = current() else { return }
            try db.execute(sql: "UPDATE upload SET content_modified_at = ?, updated_at = ? WHERE id = ?",
                           arguments: [date?.timeIntervalSince1970, Date().timeIntervalSince1970, id])
        }
    }

    /// Forgets an entry (uploaded, or its file deleted before upload).
    public func remove(id: Int64) throws {
        try write { db in try db.execute(sql: "DELETE FROM upload WHERE id = ?", arguments: [id]) }
    }

    /// Counts a failed attempt and keeps its message for `status`.
    public func noteFailure(id: Int64, _ message: String) throws {
        try write { db in
            try db.execute(
                sql: "UPDATE upload SET attempts = attempts + 1, last_error = ?, updated_at = ? WHERE id = ?",
                arguments: [message, Date().timeIntervalSince1970, id])
        }
    }

    /// Ends this process's use of the journal: every later read or write throws, as nothing reaches the file after a
    /// process dies. The core's in-process model ends a "killed" core this way before the next one opens the journal
    /// (the killed core's tasks may still be running, and must change nothing).
    public func close() {
        commits.end()
    }

    /// Debug builds: the journal's synchronous calls (by name, as `pending()`) made so far from a task on Swift's
    /// cooperative pool, where each stalls every other task of the process while SQLite works. Empty in release builds.
    public var callsOnThePool: Set<String> { poolCalls.withLock { $0 } }

    /// A write in the next group commit; durable when this returns.
    func write<T>(_ body: @escaping (Database) throws -> T, caller: String = #function) throws -> T {
        notePoolCall(caller)
        return try commits.write(body)
    }

    func read<T>(_ body: (Database) throws -> T, caller: String = #function) throws -> T {
        notePoolCall(caller)
        if commits.isEnded { throw WriteBackError("journal read failed: the journal was closed") }
        do { return try database.read(body) } catch { throw WriteBackError("journal read failed: \(error)") }
    }

    private func notePoolCall(_ caller: String) {
        #if DEBUG
        if Syscall.isOnCooperativePool { _ = poolCalls.withLock { $0.insert(caller) } }
        #endif
    }

    /// parent_id, name, file_id, base_etag, base_sha1 (after `prefix`).
    private static func targetArguments(_ target: UploadTarget, prefix: [(any DatabaseValueConvertible)?])
        -> StatementArguments
    {
        switch target {
        case .newFile(let parentID, let name):
            return StatementArguments(prefix + [parentID, name, nil, nil, nil])
        case .newVersion(let fileID, let parentID, let name, let etag, let sha1):
            return StatementArguments(prefix + [parentID, name, fileID, etag, sha1])
        }
    }
}
