import BoxAPI
import Foundation

/// Settings of one mount that the core needs (the CLI parses them; the adapter passes timeouts to the kernel).
public struct FilesystemOptions: Sendable {
    /// Owner shown for every node (Box has no POSIX owners): the mounting user by default.
    public var uid: UInt32
    public var gid: UInt32
    /// Writes answer EROFS.
    public var readOnly: Bool
    /// How long a folder listing is trusted before it is fetched again.
    public var directoryCacheTTL: Duration
    /// How long a listing is trusted while Box's event stream is followed (`EventFollower`).
    public var followedListingTTL: Duration = .seconds(900)
    /// Entries the cached folder listings may hold in all before the least recently used are dropped
    /// (`listing_cache_entries=`; see `InodeTable+Eviction`).
    public var listingCacheEntries = 20_000
    /// Inodes the kernel may hold before it is asked to forget the least recently used files it holds for no
    /// open handle (`node_cache_entries=`; see `InodeTable+NodeEviction`).
    public var nodeCacheEntries = Self.defaultNodeCacheEntries
    public static let defaultNodeCacheEntries = 45_000
    /// How long the kernel may cache names and attributes.
    public var entryTimeout: Double
    public var attributeTimeout: Double
    /// Modes shown for every file and folder (`umask=`, `file_mode=`, `dir_mode=`): Box has none, and
    /// with `default_permissions` the kernel enforces these for other users of an `allow_other` mount.
    public var filePermissions: UInt16 = 0o644
    public var directoryPermissions: UInt16 = 0o755
    /// Where the daemon logs (a file's path, `syslog` or `stderr`), for `boxfs status`.
    public var logDestination: String?
    /// The control directory's name at the mount root (`control_dir=`; see `ControlDirectory`).
    public var controlDirectoryName = ControlDirectory.defaultName
    /// Where an item's web page is (`BoxEndpoints.webAppBase`), for the `user.box.url` attribute.
    public var webAppBase = BoxEndpoints.box.webAppBase
    /// Keep symbolic links as small Box files `NAME.boxlink` holding the target, shown as links (`links`; see
    /// `FileSystem+Links`). Off: `symlink` answers EPERM, and such files show as the plain files they are.
    public var links = false
    /// The Box user the mount acts as: its own locks do not bind it (nil: every lock binds).
    public var userID: String?
    /// Where the mount's pin set is kept (`boxfs pin`; see `Pinner`); nil: pinning is not available (`cache=off`).
    public var pinFile: URL?
    /// `pin_size=` as given (for messages); nil: the default budget, the disk's free space.
    public var pinBudget: String?

    public init(
        uid: UInt32 = getuid(), gid: UInt32 = getgid(), readOnly: Bool = true,
        directoryCacheTTL: Duration = .seconds(60), entryTimeout: Double = 1, attributeTimeout: Double = 1
    ) {
        self.uid = uid
        self.gid = gid
        self.readOnly = readOnly
        self.directoryCacheTTL = directoryCacheTTL
        self.entryTimeout = entryTimeout
        self.attributeTimeout = attributeTimeout
    }
}
