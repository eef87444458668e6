import GRDB

/// The tree on disk's SQLite schema as GRDB migrations (append new ones; never edit a shipped one).
///
/// `listing`: one row per folder whose listing the mount held, its items as a JSON array of `StoredItem`, and
/// when Box listed it (Unix seconds). `stream`: one row, the event stream position the listings reflect (the
/// position applied when they were written) and when it was written.
enum DiskTreeSchema {
    static func migrator() -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE listing (
                        folder_id TEXT PRIMARY KEY,
                        fetched_at REAL NOT NULL,
                        items BLOB NOT NULL);
                    CREATE TABLE stream (
                        id INTEGER PRIMARY KEY CHECK (id = 1),
                        position TEXT,
                        saved_at REAL NOT NULL);
                    """)
        }
        return migrator
    }
}
