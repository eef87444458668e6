import GRDB

/// The SQLite schema, as GRDB migrations (append new migrations; never edit a shipped one).
enum Schema {
    static func migrator() -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                CREATE TABLE user (
                    id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, login TEXT NOT NULL UNIQUE,
                    kind TEXT NOT NULL, status TEXT NOT NULL, space_amount INTEGER NOT NULL,
                    max_upload_size INTEGER NOT NULL, created_at INTEGER NOT NULL, modified_at INTEGER NOT NULL,
                    root_folder_id INTEGER, enterprise_id INTEGER);
                CREATE TABLE item (
                    id INTEGER PRIMARY KEY AUTOINCREMENT, type TEXT NOT NULL, type_rank INTEGER NOT NULL,
                    name TEXT NOT NULL, name_key TEXT NOT NULL, parent_id INTEGER REFERENCES item(id),
                    owner_id INTEGER NOT NULL, is_root INTEGER NOT NULL DEFAULT 0,
                    sequence_id INTEGER NOT NULL DEFAULT 0, etag INTEGER NOT NULL DEFAULT 0,
                    description TEXT NOT NULL DEFAULT '', created_at INTEGER NOT NULL, modified_at INTEGER NOT NULL,
                    content_created_at INTEGER NOT NULL, content_modified_at INTEGER NOT NULL,
                    created_by INTEGER NOT NULL, modified_by INTEGER NOT NULL, version_id INTEGER,
                    size INTEGER NOT NULL DEFAULT 0, sha1 TEXT, item_status TEXT NOT NULL DEFAULT 'active',
                    trashed_at INTEGER);
                CREATE UNIQUE INDEX item_unique_name ON item(parent_id, name_key) WHERE item_status = 'active';
                CREATE INDEX item_listing ON item(parent_id, type_rank, name_key, id);
                CREATE TABLE file_version (
                    id INTEGER PRIMARY KEY AUTOINCREMENT, file_id INTEGER NOT NULL, sha1 TEXT NOT NULL,
                    size INTEGER NOT NULL, created_at INTEGER NOT NULL, modified_by INTEGER NOT NULL);
                CREATE INDEX file_version_file ON file_version(file_id);
                CREATE TABLE token (
                    token TEXT PRIMARY KEY, user_id INTEGER NOT NULL, kind TEXT NOT NULL, expires_at INTEGER,
                    client_id TEXT, scopes TEXT, restricted_item_id INTEGER);
                -- Box ids are long numbers; start each id space high so they look like Box's.
                INSERT INTO sqlite_sequence(name, seq) VALUES ('user', 20000000);
                INSERT INTO sqlite_sequence(name, seq) VALUES ('item', 100000000000);
                INSERT INTO sqlite_sequence(name, seq) VALUES ('file_version', 500000000000);
                """)
        }
        migrator.registerMigration("v2-auth") { db in
            try db.execute(sql: """
                CREATE TABLE app (
                    client_id TEXT PRIMARY KEY, client_secret TEXT NOT NULL, name TEXT NOT NULL,
                    redirect_uri TEXT, service_account_id INTEGER NOT NULL,
                    can_generate_user_tokens INTEGER NOT NULL DEFAULT 1, public_keys TEXT NOT NULL DEFAULT '[]');
                CREATE TABLE auth_code (
                    code TEXT PRIMARY KEY, client_id TEXT NOT NULL, user_id INTEGER NOT NULL, redirect_uri TEXT,
                    scopes TEXT, expires_at INTEGER NOT NULL);
                CREATE TABLE jwt_id (jti TEXT PRIMARY KEY, expires_at INTEGER NOT NULL);
                -- Tokens issued together (access + refresh) share a family; revoking one revokes the family.
                ALTER TABLE token ADD COLUMN family TEXT;
                """)
        }
        migrator.registerMigration("v3-uploads-events") { db in
            try db.execute(sql: """
                CREATE TABLE upload_session (
                    id TEXT PRIMARY KEY, user_id INTEGER NOT NULL, folder_id INTEGER, file_id INTEGER,
                    file_name TEXT NOT NULL, file_size INTEGER NOT NULL, part_size INTEGER NOT NULL,
                    total_parts INTEGER NOT NULL, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL,
                    commit_calls INTEGER NOT NULL DEFAULT 0);
                CREATE TABLE upload_part (
                    session_id TEXT NOT NULL, part_offset INTEGER NOT NULL, part_id TEXT NOT NULL,
                    size INTEGER NOT NULL, sha1 TEXT NOT NULL, PRIMARY KEY (session_id, part_offset));
                -- The user event stream; the row id is the stream position.
                CREATE TABLE event (
                    id INTEGER PRIMARY KEY AUTOINCREMENT, event_id TEXT NOT NULL, user_id INTEGER NOT NULL,
                    event_type TEXT NOT NULL, item_id INTEGER, created_at INTEGER NOT NULL);
                CREATE INDEX event_user ON event(user_id, id);
                """)
        }
        migrator.registerMigration("v4-shared-links") { db in
            try db.execute(sql: """
                -- At most one shared link per item; `token` is the `/s/<token>` part of its URL.
                CREATE TABLE shared_link (
                    item_id INTEGER PRIMARY KEY, token TEXT NOT NULL UNIQUE, access TEXT NOT NULL,
                    password TEXT, vanity_name TEXT UNIQUE, unshared_at INTEGER,
                    can_download INTEGER NOT NULL DEFAULT 1, can_edit INTEGER NOT NULL DEFAULT 0,
                    download_count INTEGER NOT NULL DEFAULT 0, preview_count INTEGER NOT NULL DEFAULT 0);
                -- Tokens exchanged with `box_shared_link` reach the item through that link.
                ALTER TABLE token ADD COLUMN shared_link_token TEXT;
                """)
        }
        migrator.registerMigration("v5-file-version-trash") { db in
            try db.execute(sql: """
                -- A deleted past version stays listed with trashed_at/by until it is restored.
                ALTER TABLE file_version ADD COLUMN trashed_at INTEGER;
                ALTER TABLE file_version ADD COLUMN trashed_by INTEGER;
                ALTER TABLE file_version ADD COLUMN restored_at INTEGER;
                ALTER TABLE file_version ADD COLUMN restored_by INTEGER;
                """)
        }
        migrator.registerMigration("v6-trash-root") { db in
            try db.execute(sql: """
                -- The item whose deletion put a trashed item in the trash (itself when deleted directly): the trash
                -- lists only those, and restoring one brings back what went with it (not what was trashed before).
                ALTER TABLE item ADD COLUMN trash_root INTEGER;
                UPDATE item SET trash_root = id WHERE item_status = 'trashed';
                CREATE INDEX item_trash ON item(owner_id, trash_root) WHERE trash_root IS NOT NULL;
                """)
        }
        migrator.registerMigration("v7-item-lock") { db in
            try db.execute(sql: """
                -- At most one lock per file (PUT /files/{id} with `lock`); an expired lock counts as none.
                CREATE TABLE item_lock (
                    id INTEGER PRIMARY KEY AUTOINCREMENT, item_id INTEGER NOT NULL UNIQUE, created_by INTEGER NOT NULL,
                    created_at INTEGER NOT NULL, expires_at INTEGER, is_download_prevented INTEGER NOT NULL DEFAULT 0);
                INSERT INTO sqlite_sequence(name, seq) VALUES ('item_lock', 2000000000);
                """)
        }
        migrator.registerMigration("v8-collaborations") { db in
            try db.execute(sql: """
                -- A user's access to another user's folder or file (and, for a folder, everything below it).
                CREATE TABLE collaboration (
                    id INTEGER PRIMARY KEY AUTOINCREMENT, item_id INTEGER NOT NULL, user_id INTEGER NOT NULL,
                    role TEXT NOT NULL, created_by INTEGER NOT NULL, created_at INTEGER NOT NULL,
                    modified_at INTEGER NOT NULL, UNIQUE (item_id, user_id));
                CREATE INDEX collaboration_user ON collaboration(user_id);
                INSERT INTO sqlite_sequence(name, seq) VALUES ('collaboration', 30000000000);
                -- Who made an event (the stream's user when null); events of shared items go to every user who
                -- can see the item.
                ALTER TABLE event ADD COLUMN actor_id INTEGER;
                """)
        }
        migrator.registerMigration("v9-event-faults") { db in
            try db.execute(sql: """
                -- A delayed event (`/_control/event_faults` delay_ms) is in no page and wakes no long poll before
                -- this time (Unix milliseconds); null: visible at once.
                ALTER TABLE event ADD COLUMN visible_at INTEGER;
                CREATE INDEX event_delayed ON event(user_id, id) WHERE visible_at IS NOT NULL;
                -- The event faults in force (one row at most): events still to drop, delay of new events.
                CREATE TABLE event_fault (
                    id INTEGER PRIMARY KEY CHECK (id = 1), drop_remaining INTEGER NOT NULL, delay_ms INTEGER NOT NULL);
                """)
        }
        migrator.registerMigration("v10-packed-blobs") { db in
            try db.execute(sql: """
                -- Contents up to 64 KiB live in pack files (BlobPacks): which pack and where in it. A content
                -- without a row is a blob file of its own, DIR/blobs/ab/<sha1>.
                CREATE TABLE packed_blob (
                    sha1 TEXT PRIMARY KEY, pack INTEGER NOT NULL, offset INTEGER NOT NULL) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("v11-event-stream-faults") { db in
            try db.execute(sql: """
                -- Box's stream as Box serves it (`/_control/event_faults`): events sent twice or late, and events past
                -- retention (`expired_through`: positions up to it are in no page).
                ALTER TABLE event_fault ADD COLUMN duplicate_rate REAL NOT NULL DEFAULT 0;
                ALTER TABLE event_fault ADD COLUMN out_of_order_rate REAL NOT NULL DEFAULT 0;
                ALTER TABLE event_fault ADD COLUMN expired_through INTEGER NOT NULL DEFAULT 0;
                """)
        }
        return migrator
    }
}
