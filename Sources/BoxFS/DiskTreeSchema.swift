import Foundation
import GRDB

/// The tree on disk's SQLite schema as GRDB migrations (append new ones; never edit a shipped one).
///
/// `listing`: one row per folder whose listing the mount held, its items as a JSON array of `StoredItem`, and
/// when Box listed it (Unix seconds). `stream`: one row, the event stream position the listings reflect (the
/// position applied when they were written) and when it was written. `listing_item` (v2): which folder's listing
/// holds each item id, so an event about an item whose folder only the disk knows deletes that listing.
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
        migrator.registerMigration("v2") { db in
            try db.execute(
                sql: """
                    CREATE TABLE listing_item (
                        item_id TEXT NOT NULL,
                        folder_id TEXT NOT NULL);
                    CREATE INDEX listing_item_by_item ON listing_item (item_id);
                    CREATE INDEX listing_item_by_folder ON listing_item (folder_id);
                    """)
            // The listings kept before: their items' rows, from the items themselves.
            let decoder = JSONDecoder()
            let rows = try Row.fetchAll(db, sql: "SELECT folder_id, items FROM listing")
            for row in rows {
                let folderID: String = row["folder_id"]
                let data: Data = row["items"]
                let stored = (try? decoder.decode([StoredItem].self, from: data)) ?? []
                try DiskTree.insertItemRows(db, folderID: folderID, itemIDs: stored.map(\.id))
            }
        }
        return migrator
    }
}
