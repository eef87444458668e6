import Foundation
import GRDB

/// A JWT public key registered for an app.
struct AppPublicKey: Codable, Sendable {
    var id: String
    var pem: String
}

extension Store {
    /// Registers an app with fresh client credentials and its own service account.
    func createApp(name: String, redirectURI: String?, publicKeys: [AppPublicKey],
                   canGenerateUserTokens: Bool) async throws -> AppRecord {
        let keysJSON = String(decoding: try JSONEncoder().encode(publicKeys), as: UTF8.self)
        return try await database.write { db in
            let clientID = Self.randomToken().lowercased()
            let service = try Self.createUser(db, name: name, login: "AutomationUser_\(clientID.prefix(8))@boxdevedition.com",
                                              kind: "service_account")
            let app = AppRecord(clientID: clientID, clientSecret: Self.randomToken(), name: name,
                                redirectURI: redirectURI, serviceAccountID: service.id!,
                                canGenerateUserTokens: canGenerateUserTokens, publicKeys: keysJSON)
            try app.insert(db)
            return app
        }
    }

    func app(clientID: String) async throws -> AppRecord? {
        try await database.read { db in try AppRecord.fetchOne(db, key: clientID) }
    }
}

extension AppRecord {
    var decodedPublicKeys: [AppPublicKey] {
        (try? JSONDecoder().decode([AppPublicKey].self, from: Data(publicKeys.utf8))) ?? []
    }
}
