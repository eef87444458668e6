import ArgumentParser
import BoxFS
import Foundation
import SystemCalls

/// `boxfs watch [PATH] [--json]`: prints each change Box reports at or below PATH as it arrives, read from the
/// folder's unlisted stream `<folder>/.boxfs\watch` (`WatchFile`), which the mount feeds from the events it follows.
struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print the changes Box reports below a folder of a boxfs mount as they arrive.",
        discussion: """
            Follows the changes Box reports at or below PATH (a folder of a
            boxfs mount, default the current one; or a file, then only its
            changes): files and folders created, modified, renamed, moved,
            trashed, deleted, restored, copied, locked, unlocked, shared,
            whoever made them (another client, the web app, this mount).
            The kernel gives a FUSE mount no way to raise inotify events for
            changes made elsewhere, so this is how a script follows them.

            One line per change, written as it arrives, with tab-separated
            fields: when (UTC), kind, path, who (name <login>, then
            ", this mount" for the mount's own change coming back) and, for
            renamed and moved, the old path. With --json, one JSON object
            per line instead: path, kind, old_path, by_name, by_login, at,
            item_id, item_type, event_id, event_type, this_mount.

            The mount follows Box's event stream (-o events=on, the
            default): changes show within about 2 seconds, each once, in
            the order Box reports them; a watcher adds no request to Box.
            A watcher that reads more slowly than changes come loses the
            changes past 1000 waiting: it says "N changes dropped" (on
            stderr; with --json, {"dropped": N} in the stream) where the
            gap is. The paths are where the mount shows the items; a change
            in a folder the mount has never listed shows when Box sends its
            path. A running watcher keeps the mount busy (stop it before
            `boxfs unmount`).

            Runs until interrupted (Ctrl-C, SIGTERM: exit 0). Exits 1 with
            one line on stderr when the mount goes away; exits 2 with one
            line on stderr for a PATH that does not exist or is not in a
            boxfs mount.

            Examples:
              boxfs watch ~/Box/Projects
              boxfs watch --json ~/Box | jq -r 'select(.kind == "created") | .path'
            """)

    @Argument(help: "A folder in a boxfs mount, or a file in one (default: the current folder).")
    var path: String = "."
    @Flag(help: "Print one JSON object per line instead of text.") var json = false

    func run() throws {
        let (target, only) = try Self.start(path)
        guard let mount = MountTable.mount(containing: target.folder) else { throw Self.fail("\(path): no mount found", status: 2) }
        let control = target.folder == "/" ? "/" + WatchFile.name : target.folder + "/" + WatchFile.name
        let descriptor = open(control, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 {
            let code = errno
            switch code {
            case ENOENT: throw Self.fail("\(target.folder): this mount's boxfs is too old for `boxfs watch` (unmount and mount it again)", status: 2)
            case EACCES, EPERM: throw Self.fail("\(target.folder): only the user who mounted it can watch this mount", status: 2)
            default: throw Self.fail("\(target.folder): \(String(cString: strerror(code)))", status: 2)
            }
        }
        Self.exitQuietlyOnSignals()
        var pending = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 {
                let why = count == 0 ? "the mount was unmounted" : String(cString: strerror(errno))
                throw Self.fail("\(mount.mountpoint): the mount went away (\(why))", status: 1)
            }
            pending.append(contentsOf: buffer[0..<count])
            while let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = pending[pending.startIndex..<end]
                pending = Data(pending[(end + 1)...])
                guard let change = try? CommandFile.decoder.decode(WatchChange.self, from: line) else { continue }
                show(change, mountpoint: mount.mountpoint, only: only)
            }
        }
    }

    /// Prints one change (or the count of dropped ones), if it is about `only` when a file was given.
    private func show(_ change: WatchChange, mountpoint: String, only: String?) {
        if let dropped = change.dropped {
            if json {
                Self.emit("{\"dropped\":\(dropped)}")
            } else {
                FileHandle.standardError.write(Data("boxfs watch: \(dropped) changes dropped (read too slowly)\n".utf8))
            }
            return
        }
        let absolute = { (relative: String?) in relative.map { $0.isEmpty ? mountpoint : (mountpoint == "/" ? "/" : mountpoint + "/") + $0 } }
        let path = absolute(change.path), oldPath = absolute(change.oldPath)
        if let only, path != only, oldPath != only { return }
        let date = change.at.map { Self.dateFormatter.string(from: $0) }
        if json {
            let object: [String: Any] = [
                "path": path ?? NSNull(), "kind": change.kind ?? NSNull(), "old_path": oldPath ?? NSNull(),
                "by_name": change.byName ?? NSNull(), "by_login": change.byLogin ?? NSNull(), "at": date ?? NSNull(),
                "item_id": change.itemID ?? NSNull(), "item_type": change.itemType ?? NSNull(),
                "event_id": change.eventID ?? NSNull(), "event_type": change.eventType ?? NSNull(),
                "this_mount": change.thisMount ?? false,
            ]
            guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
            else { return }
            Self.emit(String(decoding: data, as: UTF8.self))
        } else {
            var who = [change.byName, change.byLogin.map { "<\($0)>" }].compactMap { $0 }.joined(separator: " ")
            if change.thisMount == true { who += who.isEmpty ? "this mount" : ", this mount" }
            var fields = [date ?? "-", change.kind ?? "-", path ?? "-", who.isEmpty ? "-" : who]
            if let oldPath { fields.append(oldPath) }
            Self.emit(fields.joined(separator: "\t"))
        }
    }

    /// The folder to watch and, for a file, the file's absolute path; a PATH that is not in a boxfs mount ends the
    /// command with status 2.
    private static func start(_ path: String) throws -> (CommandChannel.Target, String?) {
        do throws(CommandChannel.Failure) {
            let target = try CommandChannel.existing(path)
            if target.name == nil { return (target, nil) }
            if let status = try? Syscall.status(target.path), status.st_mode & S_IFMT == S_IFDIR {
                return (CommandChannel.Target(folder: target.path, name: nil), nil)
            }
            return (CommandChannel.Target(folder: target.folder, name: nil), target.path)
        } catch {
            throw fail(error.description, status: 2)
        }
    }

    /// Writes one line to stdout at once (no buffer: a script reading the pipe sees each change as it comes).
    private static func emit(_ line: String) {
        var bytes = Array((line + "\n").utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            if written < 0, errno == EINTR { continue }
            if written <= 0 { _exit(0) }  // nobody reads any more (`| head`)
            bytes = bytes.dropFirst(written)
        }
    }

    private static func fail(_ message: String, status: Int32) -> ExitCode {
        FileHandle.standardError.write(Data("boxfs watch: \(message)\n".utf8))
        return ExitCode(status)
    }

    /// Ctrl-C and SIGTERM end the command with status 0: every line printed was flushed already.
    private static func exitQuietlyOnSignals() {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in _exit(0) }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        sigaction(SIGINT, &action, nil)
        sigaction(SIGTERM, &action, nil)
    }

    nonisolated(unsafe) private static let dateFormatter: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter
    }()
}
