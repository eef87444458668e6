import Foundation

/// The channel through which `boxfs versions|restore|trash|link|lock|unlock|search` act on Box with a mount's
/// own rights (its token, `As-User`, downscoped scope): every folder of the mount answers one more unlisted
/// name, `<folder>/.boxfs\command`. A command opens it read-write, writes one JSON `CommandRequest` naming an
/// item of that folder by name (or the folder itself) and an operation, then reads the JSON `CommandAnswer`
/// from offset 0; the first read runs the operation (direct I/O, so every read reaches the daemon).
///
/// Why this shape (as for `RefreshFile`): the kernel resolves the folder (relative paths, `..`, symlinks, bind
/// mounts) and reports a missing one before the daemon is asked; only the mount holds credentials, so a
/// command reads none; and only the mount's owner can open the file (mode 0600, enforced by
/// `default_permissions`), as only the owner can write the mount's files. Box forbids `\` in names, so no Box
/// item can shadow the name. The request travels through `write(2)`, never the command line, so a shared
/// link's password is not seen by `ps`; the daemon never logs a request.
///
/// Why the operation runs in the read, not the write or the open: a read is answered EINTR as soon as the
/// caller is interrupted (`InterruptRegistry`), so Ctrl-C stops a command waiting for a hung server at once
/// (the operation's task is cancelled with it; whether a change already reached Box is then unknown).
///
/// On a read-only mount the kernel refuses that read-write open; commands that only read use a name that carries
/// the request instead (`CommandQueries`).
///
/// Inodes: top bits 001 (bit 61 set, bits 62 and 63 clear; Box items count up from 2, `RefreshFile` has bit 62,
/// the status files bit 63), the folder's inode below them; with bit 60 also set, a query name's.
public enum CommandFile {
    public static let name = ".boxfs\\command"

    /// The prefix of the names that carry a read-only request (`CommandQueries`).
    public static let queryPrefix = name + "\\"

    private static let flag: UInt64 = 1 << 61
    private static let topBits: UInt64 = 0b111 << 61
    /// Within the range, bit 60 marks a query name's inode (folders' inodes stay below it).
    private static let queryBit: UInt64 = 1 << 60

    /// The command file's inode for the folder `folder`.
    static func inode(folder: UInt64) -> UInt64 { flag | folder }

    /// The folder a command file's inode names; nil for any other inode.
    static func folder(of inode: UInt64) -> UInt64? {
        inode & (topBits | queryBit) == flag && !WatchFile.isWatch(inode) ? inode & ~topBits : nil
    }

    /// The name that carries `request` on a read-only mount (`CommandQueries`; the client side).
    public static func queryName(for request: Data) -> String {
        queryPrefix + request.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The inode of the query numbered `number` (`CommandQueries`).
    static func queryInode(_ number: UInt64) -> UInt64 { flag | queryBit | number }

    /// Whether `inode` is a query name's.
    static func isQuery(_ inode: UInt64) -> Bool { inode & (topBits | queryBit) == flag | queryBit }

    /// The largest request accepted (a request is a few hundred bytes).
    static let maxRequestBytes = 64 * 1024

    /// Dates in requests and answers: RFC 3339, as Box writes them.
    public static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    public static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()
}

/// One operation asked of the mount through `CommandFile`.
public struct CommandRequest: Codable, Sendable, Equatable {
    public enum Operation: String, Codable, Sendable {
        /// Whether the operation changes anything on Box (refused on a read-only mount).
        public var changesBox: Bool {
            switch self {
            case .versions, .trashList, .search, .pin, .unpin, .pinned: false
            default: true
            }
        }

        case versions, restore, lock, unlock, link
        case trashList = "trash-list", trashRestore = "trash-restore", trashPurge = "trash-purge"
        case search
        /// Pinning keeps items on this machine and changes nothing on Box (`FileSystem+Pins`).
        case pin, unpin, pinned
    }

    public var op: Operation
    /// The item of the command file's folder the operation acts on; nil: the folder itself.
    public var name: String?
    /// `restore`: the earlier version, numbered from 1 (the first upload) as `versions` lists them.
    public var version: Int?
    /// `lock`: when the lock ends (nil: until unlocked); `link`: when the link stops working.
    public var expiresAt: Date?
    /// `lock`: others may not download the file; `link`: the link allows no download.
    public var preventDownload: Bool?
    /// `link`: `open`, `company` or `collaborators`.
    public var access: String?
    /// `link`: the link's new password (read from a file by the command; never logged).
    public var password: String?
    /// `link`: removes the link instead.
    public var remove: Bool?
    /// `search`: Box's query, file extensions (no dot) and `file`/`folder`.
    public var query: String?
    public var extensions: [String]?
    public var type: String?
    /// `pin`: the item's path below the mount's root, as the command was given it (what `pinned` shows).
    public var pinPath: String?

    public init(op: Operation, name: String? = nil) {
        self.op = op
        self.name = name
    }
}

/// What the mount answers: exactly one of the members is set for a successful operation; `error` is one
/// line for the user (Box's refusal and why, no such item, ...).
public struct CommandAnswer: Codable, Sendable, Equatable {
    /// An earlier version of a file.
    public struct Version: Codable, Sendable, Equatable {
        /// 1 for the first upload, counting up; the current version is one more than the last listed.
        public var number: Int
        public var id: String
        public var modifiedAt: Date?
        public var modifiedBy: String?
        public var size: Int64
        public var sha1: String?
    }

    /// An item's lock (nil in `lock` after `unlock`).
    public struct Lock: Codable, Sendable, Equatable {
        public var createdBy: String?
        public var expiresAt: Date?
        public var isDownloadPrevented: Bool
    }

    /// An item's shared link.
    public struct Link: Codable, Sendable, Equatable {
        public var url: String
        public var downloadURL: String?
        public var access: String?
        public var isPasswordEnabled: Bool
        public var unsharedAt: Date?
        public var canDownload: Bool?
    }

    /// An item in the trash.
    public struct Trashed: Codable, Sendable, Equatable {
        /// Where it was, relative to the command file's folder (`reports/2024`).
        public var path: String
        public var id: String
        public var type: String
        public var size: Int64
        public var trashedAt: Date?
    }

    /// A pin (`pin`, `pinned`): the item, and how much of it is on this machine.
    public struct Pin: Codable, Sendable, Equatable {
        /// Below the mount's root (`""`: the root).
        public var path: String
        public var id: String
        public var kind: String
        public var files: Int
        public var filesDone: Int
        public var bytes: Int64
        public var bytesDone: Int64
        /// Why the pin's last walk or a fetch of one of its files failed.
        public var error: String?
    }

    public var error: String?
    public var versions: [Version]?
    /// `pin`: the new pin; `pinned`: every pin of the mount; `unpin`: the pin released.
    public var pins: [Pin]?
    /// `restore`: the version promoted, and the file's new current version number.
    public var restoredVersion: Int?
    public var lock: Lock?
    public var unlocked: Bool?
    public var link: Link?
    public var linkRemoved: Bool?
    public var trash: [Trashed]?
    /// `trash-restore`: the item's path again, relative to the command file's folder.
    public var restoredPath: String?
    public var purged: Bool?
    /// `search`: the results' paths, relative to the command file's folder.
    public var paths: [String]?

    public init() {}

    public static func failure(_ message: String) -> CommandAnswer {
        var answer = CommandAnswer()
        answer.error = message
        return answer
    }
}
