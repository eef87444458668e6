import BoxAPI
import BoxFS
import Crypto
import Foundation
import SystemCalls

/// The account a mount of one server and profile last signed in as, and the folders it mounted: what a start
/// without Box needs (the user id names the cache folder; the folder's item is the mount's root). Kept in
/// `<cache_dir>/accounts/<sha256(endpoint, profile, As-User) prefix>.json`, 0600, replaced whole (synced, then renamed);
/// no token and no secret.
struct KnownAccount: Codable {
    var userID: String
    var name: String
    var login: String
    var spaceAmount: Int64
    var spaceUsed: Int64
    var maxUploadSize: Int64?
    /// The mounted folders, by `box:` path.
    var roots: [String: StoredItem] = [:]

    var user: BoxUser {
        BoxUser(id: userID, name: name, login: login, spaceAmount: spaceAmount, spaceUsed: spaceUsed,
                maxUploadSize: maxUploadSize)
    }

    /// The file of this server, profile (`label`) and As-User id.
    static func file(options: MountOptions, endpoint: String, label: String, asUser: String?) -> URL {
        let key = SHA256.hash(data: Data("\(endpoint)\n\(label)\n\(asUser ?? "")".utf8)).prefix(8)
            .map { String(format: "%02x", $0) }.joined()
        return CacheLocation.base(options: options).appendingPathComponent("accounts/\(key).json")
    }

    static func read(_ file: URL) -> KnownAccount? {
        guard let data = try? Data(contentsOf: file) else { return nil }
        return try? JSONDecoder().decode(KnownAccount.self, from: data)
    }

    /// Notes that `user` mounted `root` at `path` (kept beside the folders mounted before); a failure is ignored
    /// (the next start without Box then fails as before).
    static func remember(_ user: BoxUser, root: BoxItem, path: String, in file: URL) {
        var known = read(file).flatMap { $0.userID == user.id ? $0 : nil }
            ?? KnownAccount(userID: user.id, name: user.name, login: user.login, spaceAmount: user.spaceAmount,
                            spaceUsed: user.spaceUsed, maxUploadSize: user.maxUploadSize)
        known.name = user.name
        known.login = user.login
        known.spaceAmount = user.spaceAmount
        known.spaceUsed = user.spaceUsed
        known.maxUploadSize = user.maxUploadSize
        known.roots[path] = StoredItem(root)
        do {
            let directory = file.deletingLastPathComponent()
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try Syscall.replaceFile(file.path, with: try JSONEncoder().encode(known))
        } catch {}
    }
}
