import GRDB

extension Store {
    /// boxsim hosts one enterprise; every user belongs to it.
    static let enterpriseID: Int64 = 900_001
    static let defaultSpaceAmount: Int64 = 10 * 1024 * 1024 * 1024 * 1024
    static let defaultMaxUploadSize: Int64 = 50 * 1024 * 1024 * 1024

    /// The admin user (created with its root folder on first start).
    func ensureAdmin() throws -> UserRecord {
        try database.write { db in
            if let admin = try UserRecord.filter(sql: "kind = 'admin'").order(sql: "id").fetchOne(db) {
                return admin
            }
            return try Self.createUser(db, name: "Admin User", login: "admin@boxsim.example", kind: "admin")
        }
    }

    /// Creates a managed user, app user or admin (with a root folder).
    func createUser(name: String, login: String, kind: String) async throws -> UserRecord {
        try await database.write { db in try Self.createUser(db, name: name, login: login, kind: kind) }
    }

    /// Changes a user's status (active, inactive, ...), storage quota or maximum file size.
    func updateUser(id: Int64, status: String?, spaceAmount: Int64?, maxUploadSize: Int64? = nil) async throws
        -> UserRecord? {
        try await database.write { db in
            guard var user = try UserRecord.fetchOne(db, key: id) else { return nil }
            if let status { user.status = status }
            if let spaceAmount { user.spaceAmount = spaceAmount }
            if let maxUploadSize { user.maxUploadSize = maxUploadSize }
            user.modifiedAt = Timestamp.now()
            try user.update(db)
            return user
        }
    }

    /// Inserts a user and its root folder.
    static func createUser(_ db: Database, name: String, login: String, kind: String) throws -> UserRecord {
        let now = Timestamp.now()
        var user = UserRecord(id: nil, name: name, login: login, kind: kind, status: "active",
                              spaceAmount: defaultSpaceAmount, maxUploadSize: defaultMaxUploadSize,
                              createdAt: now, modifiedAt: now, rootFolderID: nil, enterpriseID: enterpriseID)
        try user.insert(db)
        var root = ItemRecord.newFolder(name: "All Files", parentID: nil, ownerID: user.id!, time: now)
        root.isRoot = true
        try root.insert(db)
        user.rootFolderID = root.id
        try user.update(db)
        return user
    }

    func user(id: Int64) async throws -> UserRecord? {
        try await database.read { db in try UserRecord.fetchOne(db, key: id) }
    }

    func users(ids: Set<Int64>) async throws -> [Int64: UserRecord] {
        try await database.read { db in
            let users = try UserRecord.fetchAll(db, keys: Array(ids))
            return Dictionary(users.map { ($0.id!, $0) }, uniquingKeysWith: { first, _ in first })
        }
    }

    /// Makes `token` a developer token of `userID` valid until `expiresAt` (nil: forever), replacing any earlier
    /// holder and expiry: like generating a new developer token in Box's console at each start.
    func registerDeveloperToken(_ token: String, userID: Int64, expiresAt: Int64?) throws {
        try database.write { db in
            try TokenRecord(token: token, userID: userID, kind: "developer", expiresAt: expiresAt, clientID: nil,
                            scopes: nil, restrictedItemID: nil, family: nil).save(db)
        }
    }

    /// The user and token record for a bearer token that is known and not expired.
    func authenticate(token: String, now: Int64) async throws -> (UserRecord, TokenRecord)? {
        try await database.read { db in
            guard let record = try TokenRecord.fetchOne(db, key: token), record.kind != "refresh" else { return nil }
            if let expiry = record.expiresAt, expiry <= now { return nil }
            guard let user = try UserRecord.fetchOne(db, key: record.userID), user.status == "active" else {
                return nil
            }
            return (user, record)
        }
    }

    /// Bytes used by the user's current file versions.
    func spaceUsed(userID: Int64) async throws -> Int64 {
        try await database.read { db in
            try Int64.fetchOne(db, sql: """
                SELECT COALESCE(SUM(size), 0) FROM item WHERE owner_id = ? AND type = 'file' AND item_status = 'active'
                """, arguments: [userID]) ?? 0
        }
    }
}

extension Store {
    func user(login: String) async throws -> UserRecord? {
        try await database.read { db in
            try UserRecord.filter(sql: "lower(login) = lower(?)", arguments: [login]).fetchOne(db)
        }
    }
}
