import BoxAPI
import BoxFS
import Foundation
import Logging

/// Builds the mount's `EventFollower` (unless `-o events=off`): its stream position is kept in
/// `<cache_dir>/<account>/events-<mounted item id>.position`, beside the block cache and the write-back
/// folder, so a remount with the same cache_dir catches up on what changed while unmounted.
enum EventFollowerSetup {
    static func make(
        options: MountOptions, source: MountSource, endpoint: String, userID: String, rootID: String,
        client: BoxClient, filesystem: FileSystem, logger: Logger
    ) -> EventFollower? {
        guard options.followEvents else { return nil }
        // The user's event stream reports the user's own changes (and those in folders shared with them),
        // not those of a shared link's owner: a shared-link mount relies on dir_cache_ttl.
        if case .sharedLink = source { return nil }
        let file = positionFile(options: options, endpoint: endpoint, userID: userID, rootID: rootID)
        return EventFollower(filesystem: filesystem, client: client, positionFile: file, logger: logger)
    }

    /// Where the stream position of this account and mounted folder is kept.
    static func positionFile(options: MountOptions, endpoint: String, userID: String, rootID: String) -> EventPositionFile {
        let account = CacheLocation.accountDirectory(options: options, endpoint: endpoint, userID: userID)
        try? FileManager.default.createDirectory(
            at: account, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return EventPositionFile(url: account.appendingPathComponent("events-\(rootID).position"))
    }
}
