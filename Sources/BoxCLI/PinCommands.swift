import ArgumentParser
import BoxFS
import Foundation

/// `boxfs pin PATH...`, `boxfs unpin PATH...`, `boxfs pinned [PATH]`: keeping items of a mount on this machine,
/// through the mount's command channel (`CommandFile`); the mount's pinner does the work (`Pinner`).
enum PinChannel {
    /// A PATH that is not in a boxfs mount: exit status 2.
    struct NotInMount: Error, CustomStringConvertible {
        let description: String
    }

    /// The item at `path` and its mount's mountpoint.
    static func target(_ path: String) throws -> (CommandChannel.Target, String) {
        guard let resolved = realpath(path, nil) else {
            throw CommandChannel.Failure(description: "\(path): \(String(cString: strerror(errno)))")
        }
        let absolute = String(cString: resolved)
        free(resolved)
        guard let mount = MountTable.mount(containing: absolute), mount.type == "fuse.boxfs" else {
            let type = MountTable.mount(containing: absolute)?.type
            throw NotInMount(description: "\(path) is not in a boxfs mount (\(type.map { "it is on \($0)" } ?? "no mount found"))")
        }
        return (try CommandChannel.existing(absolute), mount.mountpoint)
    }

    /// `target`'s path below `mountpoint` (`""` for the mountpoint itself).
    static func relative(_ path: String, to mountpoint: String) -> String {
        if path == mountpoint { return "" }
        let prefix = mountpoint == "/" ? "/" : mountpoint + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }

    /// The absolute path of a pin of the mount at `mountpoint`.
    static func absolute(_ pin: CommandAnswer.Pin, in mountpoint: String) -> String {
        pin.path.isEmpty ? mountpoint : (mountpoint == "/" ? "/" : mountpoint + "/") + pin.path
    }

    /// `PATH: 3 of 5 file(s), 1.2 MB of 3.4 MB here (35%)`, and the pin's last error.
    static func line(_ pin: CommandAnswer.Pin, in mountpoint: String) -> String {
        let percent = pin.bytes > 0 ? pin.bytesDone * 100 / pin.bytes : (pin.filesDone == pin.files ? 100 : 0)
        var line = "\(absolute(pin, in: mountpoint)): \(pin.filesDone) of \(pin.files) file(s), "
            + "\(StatusText.bytes(pin.bytesDone)) of \(StatusText.bytes(pin.bytes)) here (\(percent)%)"
        if let error = pin.error { line += "; last error: \(error)" }
        return line
    }

    struct JSONPin: Encodable {
        var path: String
        var id: String
        var kind: String
        var files: Int
        var filesDone: Int
        var bytes: Int64
        var bytesDone: Int64
        var error: String?
        init(_ pin: CommandAnswer.Pin, in mountpoint: String) {
            (path, id, kind) = (absolute(pin, in: mountpoint), pin.id, pin.kind)
            (files, filesDone, bytes, bytesDone, error) = (pin.files, pin.filesDone, pin.bytes, pin.bytesDone, pin.error)
        }
    }

    /// Runs `body` for each path: one line on stderr for each failure; exit status 2 if a path was not in a boxfs
    /// mount, else 1 if anything failed.
    static func each(_ command: String, _ paths: [String], _ body: (String) throws -> Void) throws {
        var status: Int32 = 0
        for path in paths {
            do { try body(path) } catch let error as NotInMount {
                FileHandle.standardError.write(Data("boxfs \(command): \(error.description)\n".utf8))
                status = 2
            } catch {
                FileHandle.standardError.write(Data("boxfs \(command): \(error)\n".utf8))
                status = max(status, 1)
            }
        }
        if status != 0 { throw ExitCode(status) }
    }
}

struct PinCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pin",
        abstract: "Keep files or folders of a boxfs mount on this machine: downloaded, verified, never evicted.",
        discussion: """
            A pinned folder's files, at any depth, and those added to it
            later, are downloaded whole in the background (after what
            you read yourself), checked against Box's SHA-1, and kept in
            the mount's disk cache: never evicted by other reading, and
            readable when Box cannot be reached. When Box has a new
            version of a pinned file, the mount fetches it. Pins are by
            Box id (a pinned folder renamed on Box stays pinned) and are
            kept across remounts.

            Pinned files have their own budget, apart from cache_size:
            pin_size=SIZE, else the disk's free space less cache_min_free.
            A pin whose files need more than is left is refused with one
            line saying how much it needs and how much there is, and
            nothing is pinned.

            Returns at once; `boxfs pinned` and `boxfs status` show the
            progress, and `getfattr -n user.box.pinned FILE` names the pin
            that keeps a file. Exits 2 for a path that is not in a boxfs
            mount, 1 with one line on stderr for any other failure.

            Examples:
              boxfs pin ~/Box/Projects ~/Box/notes.txt
              boxfs pinned
            """)

    @Argument(help: "Files or folders in boxfs mounts.") var paths: [String]
    @Flag(help: "Print JSON instead of text.") var json = false

    func run() throws {
        var pins: [PinChannel.JSONPin] = []
        try PinChannel.each("pin", paths) { path in
            let (target, mountpoint) = try PinChannel.target(path)
            var request = CommandRequest(op: .pin)
            request.pinPath = PinChannel.relative(target.path, to: mountpoint)
            let answer = try CommandChannel.send(request, to: target, command: "pin")
            for pin in answer.pins ?? [] {
                if json { pins.append(PinChannel.JSONPin(pin, in: mountpoint)) } else {
                    print("pinned " + PinChannel.line(pin, in: mountpoint))
                }
            }
        }
        if json { CommandChannel.printJSON(pins) }
    }
}

struct UnpinCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unpin",
        abstract: "Release pins of a boxfs mount: their files become ordinary cache again.",
        discussion: """
            The item's files stay in the disk cache as ordinary blocks,
            which other reading may evict (least recently used first);
            a fetch of them under way stops. PATH must be pinned itself
            (`boxfs pinned` lists the pins): a file inside a pinned
            folder is refused, naming the pin. Exits 2 for a path that
            is not in a boxfs mount, 1 with one line on stderr for any
            other failure.

            Example:
              boxfs unpin ~/Box/Projects
            """)

    @Argument(help: "Pinned files or folders in boxfs mounts.") var paths: [String]

    func run() throws {
        try PinChannel.each("unpin", paths) { path in
            let (target, mountpoint) = try PinChannel.target(path)
            var request = CommandRequest(op: .unpin)
            request.pinPath = PinChannel.relative(target.path, to: mountpoint)
            _ = try CommandChannel.send(request, to: target, command: "unpin")
            print("\(target.path): unpinned")
        }
    }
}

struct PinnedCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pinned",
        abstract: "List the pins of boxfs mounts, with how much of each is on this machine.",
        discussion: """
            One line per pin: its path, the files and bytes on this
            machine (downloaded and verified) of those it covers, and
            the last error of its downloads, if any. Without PATH, every
            boxfs mount of yours; with it, the mount PATH is in (exit
            status 2 when it is in none).

            Example:
              boxfs pinned ~/Box
            """)

    @Argument(help: "A path in a boxfs mount (default: every boxfs mount).") var path: String?
    @Flag(help: "Print JSON instead of text.") var json = false

    func run() throws {
        var pins: [PinChannel.JSONPin] = []
        let mountpoints: [String]
        if let path {
            var found: [String] = []
            try PinChannel.each("pinned", [path]) { path in found.append(try PinChannel.target(path).1) }
            mountpoints = found
        } else {
            mountpoints = StatusCommand.boxfsMounts()
        }
        try PinChannel.each("pinned", mountpoints) { mountpoint in
            let answer = try CommandChannel.send(
                CommandRequest(op: .pinned), to: CommandChannel.Target(folder: mountpoint, name: nil), command: "pinned")
            let list = answer.pins ?? []
            if json {
                pins += list.map { PinChannel.JSONPin($0, in: mountpoint) }
            } else if list.isEmpty {
                if path != nil { print("\(mountpoint): nothing pinned") }
            } else {
                list.forEach { print(PinChannel.line($0, in: mountpoint)) }
            }
        }
        if json { CommandChannel.printJSON(pins) }
    }
}
