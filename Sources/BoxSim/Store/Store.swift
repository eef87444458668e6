import Foundation
import GRDB

/// The persistent state of one boxsim data directory: SQLite (GRDB, WAL) plus the blob store.
final class Store: Sendable {
    let database: DatabasePool
    let blobs: BlobStore
    let dataDirectory: URL

    init(dataDirectory: URL) throws {
        self.dataDirectory = dataDirectory
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        database = try DatabasePool(path: dataDirectory.appendingPathComponent("boxsim.sqlite").path,
                                    configuration: configuration)
        try Schema.migrator().migrate(database)
        blobs = try BlobStore(directory: dataDirectory.appendingPathComponent("blobs"))
    }

    /// A value kept in the `meta` table, created by `make` the first time it is asked for.
    func metaValue(_ key: String, orCreate make: @Sendable () -> String) throws -> String {
        try database.write { db in
            if let value = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [key]) {
                return value
            }
            let value = make()
            try db.execute(sql: "INSERT INTO meta(key, value) VALUES (?, ?)", arguments: [key, value])
            return value
        }
    }
}
