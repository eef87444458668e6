import BoxAPI
import BoxFS
import Foundation

/// The `-o` options of `mount.boxfs`, parsed and checked before anything touches the network.
///
/// Every option is documented in docs/CONFIGURATION.md. Generic options that mount(8) and fstab pass
/// to every helper (`defaults`, `noauto`, `_netdev`, `x-*`, ...) are accepted and ignored; kernel
/// flags (`nosuid`, `noexec`, ...) go to the kernel. Anything else is an error that names the option.
public struct MountOptions: Equatable, Sendable {
    public var endpoint: String?
    public var tokenFile: String?
    public var readOnly = false
    public var allowOther = false
    public var debug = false
    public var uid: UInt32?
    public var gid: UInt32?
    public var entryTimeout: Double = 1
    public var attributeTimeout: Double = 1
    public var directoryCacheTTL: Double = 60
    /// Entries the cached folder listings may hold in all before the least recently used are dropped.
    public var listingCacheEntries = 20_000
    /// Inodes the kernel may hold before it is asked to forget the least recently used files.
    public var nodeCacheEntries = FilesystemOptions.defaultNodeCacheEntries
    public var logFile: String?
    /// Auth (docs/AUTH.md): the profile to use, an `As-User` id, `file` or `memory` token store, and
    /// the scopes of a downscoped token (token exchange), separated by `+` or `:`.
    public var profile: String?
    public var asUser: String?
    public var tokenStore: String?
    public var downscope: [String]?
    /// A file holding the password of a password-protected shared link (never the password itself: argv is public).
    public var sharedLinkPasswordFile: String?
    /// The block cache: its folder (default under $XDG_CACHE_HOME/boxfs), its size limit, or off.
    public var cacheDirectory: String?
    public var cacheSize: Int64 = 4 << 30
    public var cacheEnabled = true
    /// Bytes the block cache leaves free on its disk for written data (nil: 512 MiB or a tenth of the disk).
    public var cacheMinimumFree: Int64?
    /// The budget of pinned files' blocks (`pin_size=`), apart from `cacheSize`; nil: the disk's free space
    /// less `cacheMinimumFree` (see `BlockCache+Pins`).
    public var pinSize: Int64?
    /// `pin_size=` as given, for messages.
    public var pinSizeText: String?
    /// Kernel read-ahead for the mount in KiB (set when running as root; 0 leaves the kernel's default).
    public var readAheadKilobytes = 1024
    /// Seconds after the last close before a file is uploaded (a newer close restarts the wait).
    public var writeBackDelay: Double = 2
    /// Seconds an unmount waits for pending uploads before leaving them journaled for the next mount.
    public var uploadWait: Double = 30
    /// Mount over a folder that has entries or is already a mount point (refused otherwise).
    public var allowNonEmpty = false
    /// Permission bits shown (and, with `default_permissions`, enforced by the kernel): `umask=` takes
    /// bits away from 0666 (files) and 0777 (folders); `file_mode=`, `dir_mode=` set them outright.
    public var umask: UInt16?
    public var fileMode: UInt16?
    public var directoryMode: UInt16?
    public var filePermissions: UInt16 { fileMode ?? (0o666 & ~(umask ?? 0o022)) }
    public var directoryPermissions: UInt16 { directoryMode ?? (0o777 & ~(umask ?? 0o022)) }
    /// Seconds a transfer may move nothing before it fails (a read then answers EIO); also the limit
    /// for connecting. At least 1.
    public var stallTimeout: Double = 30
    /// Follow Box's event stream so changes made elsewhere show within seconds (`events=on|off`).
    public var followEvents = true
    /// Keep symbolic links as Box files `NAME.boxlink` holding the target (`links`); without it `symlink` is EPERM.
    public var links = false
    /// The numbers the mount paces its calls under (Box's by default; 0 leaves a limit unpaced).
    public var pacingLimits = PacingLimits()
    /// The name of the control directory at the mount root (versions, trash, search): never listed, reached by name.
    public var controlDirectory = ControlDirectory.defaultName
    /// Flags passed through to the kernel mount.
    public var kernelFlags: [String] = []

    public struct ParseError: Error, CustomStringConvertible, Equatable {
        public let description: String

        /// One line, whatever the option's text held.
        init(description: String) { self.description = description.oneLine }
    }

    static let ignored: Set<String> = [
        "defaults", "auto", "noauto", "user", "nouser", "users", "owner", "group", "_netdev", "nofail",
        "relatime", "norelatime", "strictatime", "nostrictatime", "lazytime", "nolazytime", "nodiratime", "diratime",
    ]
    static let kernel: Set<String> = ["nosuid", "suid", "nodev", "dev", "noexec", "exec", "noatime", "atime", "sync", "async", "dirsync"]

    /// The kernel keeps a FUSE mount's read-ahead at most at the `max_readahead` the daemon
    /// negotiates (1 MiB, FUSE's largest request): a larger `read_ahead_kb` would silently be 1024.
    static let maximumReadAheadKilobytes = 1024

    /// The longest time any seconds option takes (a year): the daemon turns them into durations and
    /// milliseconds, which a value like 1e300 would overflow.
    static let maximumSeconds: Double = 365 * 86_400

    public init() {}

    /// Parses the words of one or more `-o` arguments (each comma-separated).
    public init(parsing groups: [String]) throws(ParseError) {
        for word in groups.flatMap({ $0.split(separator: ",", omittingEmptySubsequences: true) }) {
            try apply(String(word))
        }
    }

    private mutating func apply(_ word: String) throws(ParseError) {
        let parts = word.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        let key = String(parts[0])
        let value = parts.count > 1 ? String(parts[1]) : nil
        func required() throws(ParseError) -> String {
            guard let value, !value.isEmpty else { throw ParseError(description: "option '\(key)' needs a value: \(key)=...") }
            return value
        }
        func number<T: LosslessStringConvertible>(_ type: T.Type) throws(ParseError) -> T {
            let text = try required()
            guard let parsed = T(text) else { throw ParseError(description: "option '\(key)': '\(text)' is not a valid number") }
            return parsed
        }
        func mode() throws(ParseError) -> UInt16 {
            let text = try required()
            guard let bits = UInt16(text, radix: 8), bits <= 0o777 else {
                throw ParseError(description: "option '\(key)': '\(text)' is not an octal mode such as 077 or 0640")
            }
            return bits
        }
        func seconds() throws(ParseError) -> Double {
            let parsed = try number(Double.self)
            guard parsed >= 0, parsed <= Self.maximumSeconds else {
                throw ParseError(description: "option '\(key)' must be 0 to \(Int(Self.maximumSeconds)) seconds")
            }
            return parsed
        }
        switch key {
        case "endpoint":
            let url = try required()
            guard url.hasPrefix("http://") || url.hasPrefix("https://") else {
                throw ParseError(description: "option 'endpoint': '\(url)' is not an http:// or https:// URL")
            }
            endpoint = url
        case "token_file": tokenFile = try required()
        case "nonempty": allowNonEmpty = true
        case "links": links = true
        case "ro": readOnly = true
        case "rw": readOnly = false
        case "allow_other": allowOther = true
        case "debug": debug = true
        case "uid": uid = try number(UInt32.self)
        case "gid": gid = try number(UInt32.self)
        case "entry_timeout": entryTimeout = try seconds()
        case "attr_timeout": attributeTimeout = try seconds()
        case "dir_cache_ttl": directoryCacheTTL = try seconds()
        case "listing_cache_entries":
            let entries = try number(Int.self)
            guard entries >= 0 else { throw ParseError(description: "option 'listing_cache_entries' must be 0 or more") }
            listingCacheEntries = entries
        case "node_cache_entries":
            let entries = try number(Int.self)
            guard entries >= 0 else { throw ParseError(description: "option 'node_cache_entries' must be 0 or more") }
            nodeCacheEntries = entries
        case "log_file": logFile = try required()
        case "umask": umask = try mode()
        case "file_mode": fileMode = try mode()
        case "dir_mode": directoryMode = try mode()
        case "cache_dir": cacheDirectory = try required()
        case "cache_size":
            let text = try required()
            guard let bytes = Self.byteCount(text) else {
                throw ParseError(description: "option 'cache_size': '\(text)' is not a size like 512M or 4G")
            }
            cacheSize = bytes
        case "cache_min_free":
            let text = try required()
            guard let bytes = Self.byteCount(text) else {
                throw ParseError(description: "option 'cache_min_free': '\(text)' is not a size like 512M or 4G")
            }
            cacheMinimumFree = bytes
        case "pin_size":
            let text = try required()
            guard let bytes = Self.byteCount(text) else {
                throw ParseError(description: "option 'pin_size': '\(text)' is not a size like 512M or 4G")
            }
            pinSize = bytes
            pinSizeText = text
        case "read_ahead_kb":
            let kilobytes = try number(Int.self)
            guard kilobytes >= 0 else { throw ParseError(description: "option 'read_ahead_kb' must be 0 or more") }
            guard (0...Self.maximumReadAheadKilobytes).contains(kilobytes) else {
                throw ParseError(description: """
                    option 'read_ahead_kb': \(kilobytes) is more than the kernel lets a FUSE mount read ahead \
                    (at most \(Self.maximumReadAheadKilobytes)); use read_ahead_kb=\(Self.maximumReadAheadKilobytes)
                    """)
            }
            readAheadKilobytes = kilobytes
        case "write_back_delay": writeBackDelay = try seconds()
        case "upload_wait": uploadWait = try seconds()
        case "stall_timeout":
            let limit = try seconds()
            guard limit >= 1 else { throw ParseError(description: "option 'stall_timeout' must be at least 1 second") }
            stallTimeout = limit
        case "cache":
            let state = try required()
            guard state == "on" || state == "off" else { throw ParseError(description: "option 'cache' is on or off") }
            cacheEnabled = state == "on"
        case "events":
            let state = try required()
            guard state == "on" || state == "off" else { throw ParseError(description: "option 'events' is on or off") }
            followEvents = state == "on"
        case "control_dir":
            let name = try required()
            guard name != ".", name != "..", !name.contains("/"), name.utf8.count <= 255 else {
                throw ParseError(description: "option 'control_dir': '\(name)' is not a file name (no '/', not '.' or '..', at most 255 bytes)")
            }
            controlDirectory = name
        case _ where PacedLimit(rawValue: key) != nil:
            let count = try number(Int.self)
            guard count >= 0 else { throw ParseError(description: "option '\(key)' must be 0 (not paced) or more") }
            pacingLimits[PacedLimit(rawValue: key)!] = count
        case "shared_link_password_file": sharedLinkPasswordFile = try required()
        case "profile": profile = try required()
        case "as_user":
            let id = try required()
            guard id.allSatisfy({ $0.isASCII && $0.isNumber }) else { throw ParseError(description: "option 'as_user': '\(id)' is not a Box user id") }
            asUser = id
        case "token_store":
            let kind = try required()
            guard TokenStoreChoice.names.contains(kind) else {
                throw ParseError(description: "option 'token_store': '\(kind)' is not one of \(TokenStoreChoice.names.joined(separator: ", "))")
            }
            tokenStore = kind
        case "downscope":
            let scopes = (value ?? "root_readonly").split(whereSeparator: { $0 == "+" || $0 == ":" }).map(String.init)
            guard !scopes.isEmpty else { throw ParseError(description: "option 'downscope' needs scopes, e.g. downscope=root_readonly") }
            downscope = scopes
        case _ where Self.kernel.contains(key): kernelFlags.append(key)
        case _ where Self.ignored.contains(key) || key.hasPrefix("x-") || key == "comment": break
        default:
            throw ParseError(description: "unknown option '\(key)' (`man mount.boxfs` or docs/CONFIGURATION.md lists the options boxfs takes)")
        }
    }

    /// "4G", "512M", "100k", "1048576" (binary multiples; an optional "iB" or "B" after the letter).
    static func byteCount(_ text: String) -> Int64? {
        var digits = text.uppercased()
        for suffix in ["IB", "B"] where digits.hasSuffix(suffix) && digits.count > suffix.count { digits.removeLast(suffix.count) }
        let shifts: [Character: Int64] = ["K": 10, "M": 20, "G": 30, "T": 40]
        var shift: Int64 = 0
        if let last = digits.last, let found = shifts[last] {
            shift = found
            digits.removeLast()
        }
        guard let number = Int64(digits), number >= 0, number <= Int64.max >> shift else { return nil }
        return number << shift
    }

    /// Options for the kernel mount itself.
    func kernelOptions(fsname: String) -> [String] {
        var options = ["fsname=\(fsname)", "subtype=boxfs", "default_permissions"]
        if readOnly { options.append("ro") }
        if allowOther { options.append("allow_other") }
        return options + kernelFlags
    }
}
