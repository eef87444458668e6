import BoxAPI
import Foundation

/// The read-only extended attributes that show an item's Box facts (`getfattr -d -m user.box FILE`).
///
/// Every value comes from the item as the mount last listed it: reading one never asks Box. Values are
/// UTF-8 text without a trailing newline. An attribute whose fact the item lacks is absent (ENODATA, and
/// not listed): `shared_link` without a link, `lock` when unlocked, `sha1`/`version` for folders. While a
/// file has changes Box does not have yet, `sha1`, `version` and `etag` are absent too: they would describe
/// content other than what reading the file gives. A file Box does not have yet has none of them.
public enum BoxAttribute: String, CaseIterable, Sendable {
    case id, version, sha1, etag
    case sharedLink = "shared_link"
    case lock, owner
    case modifiedBy = "modified_by"
    case url
    /// The pin that keeps the item on this machine (`boxfs pin`): its path below the mount's root. Not a Box
    /// fact but the mount's own; answered by `FileSystem.pinnedAttribute(ofItem:)`, so `value(of:)` has none.
    case pinned

    public static let prefix = "user.box."

    /// The full attribute name, e.g. `user.box.sha1`.
    public var name: String { Self.prefix + rawValue }

    /// Whether the value describes the current content (absent while local changes wait for upload).
    var describesContent: Bool { self == .version || self == .sha1 || self == .etag }

    /// The value for `item`, or nil when the item has no such fact. `webAppBase` is where items' pages
    /// are (`https://app.box.com`, or a Box-compatible server's own base).
    func value(of item: BoxItem, webAppBase: String, now: Date = Date()) -> String? {
        switch self {
        case .id: return item.id
        case .version: return item.fileVersionID
        case .sha1: return item.sha1
        case .etag: return item.etag
        case .sharedLink: return item.sharedLinkURL
        case .lock:
            guard let lock = item.lock, lock.expiresAt.map({ $0 > now }) ?? true else { return nil }
            return lock.summary
        case .owner: return item.ownerLogin
        case .modifiedBy: return item.modifiedByLogin
        case .url: return webAppBase + (item.kind == .folder ? "/folder/" : "/file/") + item.id
        case .pinned: return nil
        }
    }
}

/// How the filesystem answers an extended attribute name it is asked to read, set or remove.
public enum AttributeNamespace: Sendable, Equatable {
    /// `user.box.*`: one of the Box facts (nil: a `user.box.` name that is none of them).
    case box(BoxAttribute?)
    /// Any other `user.*` name: a namespace boxfs has, holding nothing else (ENODATA).
    case user
    /// `security.*`, `system.*` (POSIX ACLs), `trusted.*` and the rest: not supported (ENOTSUP).
    ///
    /// ENOTSUP rather than ENODATA on purpose: `ls -l` asks every file for `security.selinux` and
    /// `system.posix_acl_access`, and GNU ls (like other tools using gnulib) stops asking for the rest of a
    /// device once one answer says the namespace is unsupported, so a listing costs two requests, not two
    /// per file. The kernel's check for file capabilities before each write treats both alike.
    case unsupported

    public init(_ name: String) {
        if name.hasPrefix(BoxAttribute.prefix) {
            self = .box(BoxAttribute(rawValue: String(name.dropFirst(BoxAttribute.prefix.count))))
        } else if name.hasPrefix("user.") {
            self = .user
        } else {
            self = .unsupported
        }
    }

    /// Setting or removing any attribute is refused: EPERM for the Box facts (they exist but are Box's to
    /// change), ENOTSUP for everything else (boxfs keeps no attributes of its own). `cp -a` passes over both
    /// quietly; `rsync -X` reports either.
    public var refusal: FSError {
        switch self {
        case .box: FSError(.notPermitted, "user.box.* attributes are read-only: they show what Box holds")
        case .user, .unsupported: FSError(.notSupported, "boxfs keeps no extended attributes of its own")
        }
    }
}

extension BoxItem.Lock {
    /// Who holds the lock, for messages: a login, else a user id.
    var holder: String { createdByLogin ?? createdByID.map { "user \($0)" } ?? "another user" }

    /// One line: who, until when, whether downloads are prevented (the `user.box.lock` attribute).
    var summary: String {
        let until = expiresAt.map { "until \(ISO8601DateFormatter().string(from: $0))" } ?? "no expiry"
        return "locked by \(holder), \(until), download \(isDownloadPrevented ? "prevented" : "allowed")"
    }
}
