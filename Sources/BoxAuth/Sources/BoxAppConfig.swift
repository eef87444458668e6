import Foundation

/// The `config.json` that Box's developer console downloads for a JWT app:
/// `{"boxAppSettings": {"clientID", "clientSecret", "appAuth": {"publicKeyID", "privateKey", "passphrase"}},
///   "enterpriseID"}`. Its contents are secrets: nothing here prints them.
public struct BoxAppConfig: Sendable, CustomStringConvertible {
    public var clientID: String
    var clientSecret: String
    public var publicKeyID: String
    var privateKey: String
    var passphrase: String?
    public var enterpriseID: String?

    public init(clientID: String, clientSecret: String, publicKeyID: String, privateKey: String, passphrase: String?,
                enterpriseID: String?) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.publicKeyID = publicKeyID
        self.privateKey = privateKey
        self.passphrase = passphrase
        self.enterpriseID = enterpriseID
    }

    public init(contentsOf path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw AuthError(.configuration, "cannot read the JWT app configuration \(path)")
        }
        guard let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let settings = root["boxAppSettings"] as? [String: Any],
            let clientID = settings["clientID"] as? String, let secret = settings["clientSecret"] as? String,
            let auth = settings["appAuth"] as? [String: Any], let keyID = auth["publicKeyID"] as? String,
            let key = auth["privateKey"] as? String
        else {
            throw AuthError(
                .configuration,
                "\(path) is not a Box app configuration (expected boxAppSettings.clientID, clientSecret, "
                    + "appAuth.publicKeyID, appAuth.privateKey)")
        }
        let enterprise = root["enterpriseID"].flatMap { value -> String? in
            if let text = value as? String { return text }
            return (value as? NSNumber)?.stringValue
        }
        self.init(clientID: clientID, clientSecret: secret, publicKeyID: keyID, privateKey: key,
                  passphrase: auth["passphrase"] as? String, enterpriseID: enterprise)
    }

    public var description: String { "BoxAppConfig(clientID: \(clientID), publicKeyID: \(publicKeyID), secrets redacted)" }
}
