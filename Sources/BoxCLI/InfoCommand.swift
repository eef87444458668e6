import ArgumentParser
import BoxFS
import CFuse  // getxattr(2), from <sys/xattr.h>
import Foundation
import SystemCalls

/// `boxfs info PATH [--json]`: what Box knows of an item in a mount, read from its `user.box.*` extended
/// attributes and `stat`. The mount answers both from what it has cached, so this sends nothing to Box and
/// needs no credentials: it shows what the mount last learnt (a refresh or an event brings newer facts).
struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show the Box facts of a file or folder in a boxfs mount.",
        discussion: """
            Prints the item's Box id, its current version id, the SHA-1 of
            that version, its etag, its size, its owner, who modified it
            last and when, its shared link, its lock (who holds it, until
            when, whether downloads are prevented) and the address of its
            page in Box's web app (https://app.box.com/file/ID or
            /folder/ID; for a mount of another API host, such as boxsim,
            that host's own address).

            Everything comes from the mount's extended attributes
            (user.box.id, user.box.version, user.box.sha1, user.box.etag,
            user.box.owner, user.box.modified_by, user.box.shared_link,
            user.box.lock, user.box.url; see `getfattr -d -m user.box PATH`)
            and from stat: the mount answers them from what it has
            cached, so nothing is asked of Box and no credentials are
            needed. The facts are as fresh as the mount's listing of the
            item's folder; `boxfs refresh` brings them up to date now.

            A file with changes not yet uploaded shows no version, SHA-1
            or etag (they would describe other content than the file's),
            and a file Box does not have yet shows no Box facts at all;
            `boxfs status` shows what is waiting.

            With --json, prints one JSON object: path, type (file or
            folder), on_box, id, version, sha1, etag, size, owner,
            modified_by, modified_at (RFC 3339), shared_link, lock, url;
            a missing fact is null.

            Exits 1 with one line on stderr for a path that does not exist
            or is not in a boxfs mount.

            Examples:
              boxfs info ~/Box/Reports/q3.pdf
              boxfs info --json ~/Box/Reports | jq -r .url
            """)

    @Argument(help: "A file or folder in a boxfs mount.")
    var path: String
    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    func run() throws {
        do throws(InfoError) {
            let info = try ItemInfo.read(path)
            print(json ? info.json : info.text)
        } catch {
            FileHandle.standardError.write(Data("boxfs info: \(error.description)\n".utf8))
            throw ExitCode(1)
        }
    }
}

struct InfoError: Error, CustomStringConvertible {
    let description: String
}

/// An item's facts as its mount shows them.
struct ItemInfo {
    let path: String
    let isFolder: Bool
    let size: Int64
    let modifiedAt: Date
    /// `user.box.*` values by attribute.
    let box: [BoxAttribute: String]

    /// Reads `path`'s attributes: it must exist and be in a boxfs mount.
    static func read(_ path: String) throws(InfoError) -> ItemInfo {
        guard let resolved = realpath(path, nil) else {
            throw InfoError(description: "\(path): \(String(cString: strerror(errno)))")
        }
        let absolute = String(cString: resolved)
        free(resolved)
        let type = MountTable.filesystemType(containing: absolute)
        guard type == "fuse.boxfs" else {
            throw InfoError(description: "\(path) is not in a boxfs mount (\(type.map { "it is on \($0)" } ?? "no mount found"))")
        }
        let status: stat
        do throws(SystemCallError) { status = try Syscall.status(absolute) } catch {
            throw InfoError(description: "\(path): \(error.reason)")
        }
        var box: [BoxAttribute: String] = [:]
        for attribute in BoxAttribute.allCases {
            box[attribute] = try readAttribute(absolute, attribute.name, shownAs: path)
        }
        return ItemInfo(
            path: absolute, isFolder: status.st_mode & S_IFMT == S_IFDIR, size: Int64(status.st_size),
            modifiedAt: Date(timeIntervalSince1970: Double(status.st_mtim.tv_sec) + Double(status.st_mtim.tv_nsec) / 1e9),
            box: box)
    }

    /// One attribute's value, or nil when the item does not have it (ENODATA).
    private static func readAttribute(_ path: String, _ name: String, shownAs shown: String) throws(InfoError) -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = getxattr(path, name, &buffer, buffer.count)
        guard count >= 0 else {
            if errno == ENODATA { return nil }
            throw InfoError(description: "\(shown): reading \(name): \(String(cString: strerror(errno)))")
        }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }

    var text: String {
        let onBox = box[.id] != nil
        let pending = onBox && !isFolder && box[.sha1] == nil
        var rows: [(String, String)] = [("path", path), ("type", isFolder ? "folder" : "file")]
        if !onBox {
            rows.append(("on Box", "not yet (waiting for upload; see boxfs status)"))
        } else {
            rows.append(("id", box[.id]!))
            if !isFolder {
                let waiting = "(local changes not yet uploaded)"
                rows += [("version", box[.version] ?? waiting), ("sha1", box[.sha1] ?? waiting)]
            }
            rows.append(("etag", box[.etag] ?? (pending ? "(local changes not yet uploaded)" : "-")))
        }
        if !isFolder { rows.append(("size", "\(size) bytes")) }
        let when = Self.timestamp(modifiedAt)
        rows.append(("modified", box[.modifiedBy].map { "\(when) by \($0)" } ?? when))
        if onBox {
            rows += [
                ("owner", box[.owner] ?? "-"), ("shared link", box[.sharedLink] ?? "none"),
                ("lock", box[.lock] ?? "none"), ("web URL", box[.url] ?? "-"),
            ]
        }
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { $0.0 + ":" + String(repeating: " ", count: width - $0.0.count + 1) + $0.1 }
            .joined(separator: "\n")
    }

    var json: String {
        func fact(_ attribute: BoxAttribute) -> Any { box[attribute] ?? NSNull() }
        let object: [String: Any] = [
            "path": path, "type": isFolder ? "folder" : "file", "on_box": box[.id] != nil,
            "id": fact(.id), "version": fact(.version), "sha1": fact(.sha1), "etag": fact(.etag),
            "size": isFolder ? NSNull() : size, "owner": fact(.owner), "modified_by": fact(.modifiedBy),
            "modified_at": Self.timestamp(modifiedAt), "shared_link": fact(.sharedLink), "lock": fact(.lock),
            "url": fact(.url),
        ]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    private static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        return formatter.string(from: date)
    }
}
