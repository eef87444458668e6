import GRDB

/// The journal's SQLite schema as GRDB migrations (append new ones; never edit a shipped one).
///
/// `upload`: one row per dirty file. Target columns: `file_id` NULL means a new file `name` in
/// `parent_id`; otherwise a new version of `file_id`, based on `base_etag` / `base_sha1`.
/// `session_*`: the chunked session being filled (endpoints kept so it can be resumed after a
/// restart without asking Box for them). `upload_part`: parts Box acknowledged, by offset.
/// Times are Unix seconds (REAL).
enum JournalSchema {
    static func migrator() -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE upload (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        staging_path TEXT NOT NULL,
                        parent_id TEXT NOT NULL,
                        name TEXT NOT NULL,
                        file_id TEXT,
                        base_etag TEXT,
                        base_sha1 TEXT,
                        content_modified_at REAL,
                        generation INTEGER NOT NULL DEFAULT 1,
                        session_id TEXT,
                        session_part_size INTEGER,
                        session_total_parts INTEGER,
                        session_expires_at REAL,
                        session_endpoints TEXT,
                        session_generation INTEGER,
                        session_file_size INTEGER,
                        attempts INTEGER NOT NULL DEFAULT 0,
                        last_error TEXT,
                        created_at REAL NOT NULL,
                        updated_at REAL NOT NULL);
                    CREATE INDEX upload_staging ON upload(staging_path);
                    CREATE TABLE upload_part (
                        upload_id INTEGER NOT NULL REFERENCES upload(id) ON DELETE CASCADE,
                        session_id TEXT NOT NULL,
                        offset INTEGER NOT NULL,
                        part_id TEXT NOT NULL,
                        size INTEGER NOT NULL,
                        sha1 TEXT,
                        PRIMARY KEY (upload_id, offset));
                    """)
        }
        // SHA-1s of content sent as a new file: after a crash, a 409 naming a file with one of these
        // is this entry's own earlier upload (of older content), not someone else's file.
        migrator.registerMigration("v2") { db in
            try db.execute(
                sql: """
                    CREATE TABLE sent_digest (
                        upload_id INTEGER NOT NULL REFERENCES upload(id) ON DELETE CASCADE,
                        sha1 TEXT NOT NULL,
                        PRIMARY KEY (upload_id, sha1));
                    """)
        }
        // Box file versions this mount's uploads made, whatever entry made them (outlives the entry): a 412
        // whose current version is one of these is the mount's own earlier upload, not a change elsewhere.
        migrator.registerMigration("v3") { db in
            try db.execute(
                sql: """
                    CREATE TABLE own_version (
                        file_id TEXT NOT NULL,
                        version_id TEXT NOT NULL,
                        created_at REAL NOT NULL,
                        PRIMARY KEY (file_id, version_id));
                    """)
        }
        // Box files this mount made that nobody wants (an upload that landed under a name since replaced, or of a
        // file deleted meanwhile) and that it is removing: kept until Box confirms, so that a kill or a failed
        // delete never leaves one holding a name the mount shows free (a later file of that name would meet it
        // as a 409 and become a conflicted copy nobody caused).
        migrator.registerMigration("v4") { db in
            try db.execute(
                sql: """
                    CREATE TABLE leftover (
                        file_id TEXT PRIMARY KEY,
                        etag TEXT,
                        parent_id TEXT,
                        name TEXT NOT NULL,
                        created_at REAL NOT NULL);
                    """)
        }
        // A leftover Box confirmed gone is kept a day, marked: an attempt of another entry that still aimed at it
        // (its retarget on the way) meets our own removal as a 404, which is no deletion by someone else.
        migrator.registerMigration("v5") { db in
            try db.execute(sql: "ALTER TABLE leftover ADD COLUMN removed_at REAL")
        }
        // Where an entry sent its content as a new file (folder and name, before sending). A rename here moves the
        // entry's target; if the daemon is killed after an attempt reached Box but before its answer came, Box
        // holds a file at a place the entry no longer names. The next attempt looks there first.
        migrator.registerMigration("v6") { db in
            try db.execute(
                sql: """
                    CREATE TABLE sent_place (
                        upload_id INTEGER NOT NULL REFERENCES upload(id) ON DELETE CASCADE,
                        parent_id TEXT NOT NULL,
                        name TEXT NOT NULL,
                        PRIMARY KEY (upload_id, parent_id, name));
                    """)
        }
        // The mount path of each folder that holds a waiting upload, as the mount knew it when the upload was
        // journaled (or moved there): `boxfs status` names the file by it when the folder's node is no longer in
        // memory (forgotten by the kernel, after a remount, while Box is unreachable).
        migrator.registerMigration("v7") { db in
            try db.execute(
                sql: """
                    CREATE TABLE folder_path (
                        folder_id TEXT PRIMARY KEY,
                        path TEXT NOT NULL);
                    """)
        }
        // Content this mount sent as a new version of a Box file whose answer never came (the connection cut after
        // Box stored it, or the daemon killed): outlives the entry that sent it (a rename over the file hands its
        // place to another entry). A 412 whose current version has one of these SHA-1s is the mount's own unanswered
        // upload, built on rather than kept beside as a conflicted copy. Dropped when the answer comes (the version
        // id then goes to `own_version`).
        migrator.registerMigration("v8") { db in
            try db.execute(
                sql: """
                    CREATE TABLE sent_version (
                        file_id TEXT NOT NULL,
                        sha1 TEXT NOT NULL,
                        created_at REAL NOT NULL,
                        PRIMARY KEY (file_id, sha1));
                    """)
        }
        return migrator
    }
}
