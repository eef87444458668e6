import ArgumentParser
import Foundation
import SystemCalls
import Logging

/// `mount.boxfs SOURCE MOUNTPOINT [-f] [-o opt,...]`, also reached as `boxfs mount ...` and as the
/// helper mount(8) runs for `-t fuse.boxfs` (`mount.fuse.boxfs`, or `boxfs SOURCE MOUNTPOINT -o ...`).
struct MountCommand: AsyncParsableCommand {
    /// Called as `mount.boxfs` (or `mount.fuse.boxfs`), help and errors name that command.
    static var configuration: CommandConfiguration { CommandConfiguration(
        commandName: BoxfsEntry.calledAsMountHelper ? BoxfsEntry.calledName : "mount",
        abstract: "Mount Box storage on a folder.",
        discussion: """
            SOURCE is box: (your Box root), box:/path/in/box, or a shared link
            such as https://app.box.com/s/TOKEN (mounted read-only).

            Without -f the command returns once the mount is ready and the
            filesystem keeps running in the background. Unmount with
            `boxfs unmount MOUNTPOINT`, `fusermount3 -u MOUNTPOINT` or
            `umount`, or stop it with SIGTERM.

            Options (-o, comma-separated; `man mount.boxfs` says what each does):
              token_file=PATH  profile=NAME  as_user=ID  downscope[=SCOPES]
              token_store=file|memory  shared_link_password_file=PATH
              endpoint=URL  ro  rw  allow_other  uid=N  gid=N
              umask=MODE  file_mode=MODE  dir_mode=MODE
              entry_timeout=S  attr_timeout=S  dir_cache_ttl=S
              listing_cache_entries=N  node_cache_entries=N
              cache_dir=PATH  cache_size=SIZE  cache_min_free=SIZE  pin_size=SIZE
              cache=on|off  read_ahead_kb=N
              write_back_delay=S  upload_wait=S  stall_timeout=S
              events=on|off  control_dir=NAME
              calls_per_minute=N  uploads_per_minute=N
              searches_per_second=N  searches_per_minute=N
              debug  log_file=PATH  nonempty  links

            Logs: with -f, stderr; in the background, log_file=PATH if
            given, else syslog (`journalctl -t boxfs`), else (no /dev/log,
            as in containers) CACHE_DIR/logs/MOUNTPOINT.log, slashes as
            dashes. `boxfs status` names it. -o debug adds each HTTP request
            (method, path, status, time; never a token or a secret URL).

            Without token_file or profile, the token comes from
            $BOX_DEVELOPER_TOKEN, else the default profile (`boxfs login`,
            docs/AUTH.md).
            """,
        version: BoxfsVersion.string) }

    @Argument(help: "box:, box:/path/in/box or a shared link https://app.box.com/s/TOKEN") var source: String
    @Argument(help: "An existing empty folder (-o nonempty to mount over one with entries).") var mountpoint: String
    @Flag(name: .customShort("f"), help: "Stay in the foreground (logs go to stderr).") var foreground = false
    @Option(name: .customShort("o"), help: "Mount options, comma-separated.") var options: [String] = []
    @Flag(name: .customShort("n"), help: .hidden) var noMtab = false
    @Flag(name: .customShort("s"), help: .hidden) var sloppy = false
    @Flag(name: .customShort("v"), help: .hidden) var verbose = false

    /// A shared link carries its token, and a daemon's arguments are public (`ps`): the launcher
    /// hands the daemon this word instead and the link in `BOXFS_SOURCE` (readable only by the user).
    static let sourceInEnvironment = "box-source-from-environment:"
    static let sourceEnvironmentKey = "BOXFS_SOURCE"

    func run() async throws {
        let source: MountSource
        let parsed: MountOptions
        let mountpoint: String
        var sourceText = self.source
        if sourceText == Self.sourceInEnvironment, let given = ProcessInfo.processInfo.environment[Self.sourceEnvironmentKey] {
            sourceText = given
            unsetenv(Self.sourceEnvironmentKey)
        }
        do {
            source = try MountSource(parsing: sourceText)
            parsed = try MountOptions(parsing: options)
            mountpoint = try Mountpoint.check(self.mountpoint, allowNonEmpty: parsed.allowNonEmpty)
        } catch {
            Self.fail("\(error)")
        }
        if foreground {
            let (logger, destination) = Logging.bootstrappedWithDestination(debug: parsed.debug)
            let status = await MountDaemon(
                source: source, mountpoint: mountpoint, options: parsed, logger: logger, logDestination: destination
            ).run()
            throw ExitCode(status)
        }
        var arguments = [CommandLine.arguments[0], self.source, mountpoint, "-f"]
        var environment: [String: String] = [:]
        if case .sharedLink = source {
            arguments[1] = Self.sourceInEnvironment
            environment[Self.sourceEnvironmentKey] = self.source
        }
        if !options.isEmpty { arguments += ["-o", options.joined(separator: ",")] }
        do {
            // Where there is no syslog (containers), a daemon's warnings would vanish: it logs to a file.
            let logFile = parsed.logFile
                ?? (Logging.syslogAvailable ? nil : CacheLocation.defaultLogFile(options: parsed, mountpoint: mountpoint))
            try BackgroundLauncher.launch(arguments: arguments, environment: environment, logFile: logFile)
        } catch {
            Self.fail("\(error)")
        }
    }

    /// The name errors start with: the helper's name when called as one (`mount.boxfs`,
    /// `mount.fuse.boxfs`), else `boxfs` (`boxfs mount ...`, and mount.fuse3's `boxfs SOURCE MOUNTPOINT`).
    static var errorPrefix: String { BoxfsEntry.calledAsMountHelper ? BoxfsEntry.calledName : "boxfs" }

    /// One line on stderr, exit status 1: what mount(8) users expect from a helper.
    static func fail(_ message: String) -> Never {
        say(message)
        Foundation.exit(1)
    }

    /// One line on stderr, starting with `errorPrefix`.
    static func say(_ message: String) {
        FileHandle.standardError.write(Data("\(errorPrefix): \(message)\n".utf8))
    }
}

/// Checks the mountpoint before anything else happens.
enum Mountpoint {
    struct CheckError: Error, CustomStringConvertible {
        let description: String
    }

    /// The absolute path of an existing folder (or `/dev/fd/N`, which mount.fuse3 passes). A folder
    /// with entries, or one something is already mounted on, is refused unless `allowNonEmpty`: its
    /// files would be hidden, and a second mount stacked on the first (each with its own journal).
    static func check(_ path: String, allowNonEmpty: Bool = false) throws -> String {
        if path.hasPrefix("/dev/fd/") { return path }
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        let status: stat
        do throws(SystemCallError) { status = try Syscall.status(absolute) } catch {
            if error.errno == ENOTCONN {
                throw CheckError(description: "\(path) is a mount whose filesystem has stopped; run `fusermount3 -u \(path)` first")
            }
            throw CheckError(description: "mountpoint \(path) does not exist")
        }
        guard status.st_mode & S_IFMT == S_IFDIR else { throw CheckError(description: "mountpoint \(path) is not a folder") }
        let resolved = URL(fileURLWithPath: absolute).standardizedFileURL.path
        guard !allowNonEmpty else { return resolved }
        if let type = mountedFilesystem(at: resolved) {
            throw CheckError(description: "\(path) is already a mount point (\(type)); unmount it first "
                + "(fusermount3 -u \(path)), or add -o nonempty to mount over it")
        }
        if let entries = try? FileManager.default.contentsOfDirectory(atPath: resolved), !entries.isEmpty {
            throw CheckError(description: "mountpoint \(path) is not empty (\(counted(entries.count, "entry", "entries")) would be hidden); "
                + "use an empty folder, or add -o nonempty to mount over it")
        }
        return resolved
    }

    /// The type of the filesystem mounted exactly at `path` (from /proc/self/mounts), or nil.
    static func mountedFilesystem(at path: String) -> String? {
        guard let table = try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8) else { return nil }
        for line in table.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count > 2 else { continue }
            // /proc/mounts escapes spaces, tabs, newlines and backslashes in octal.
            let mounted = String(fields[1]).replacingOccurrences(of: "\\040", with: " ")
                .replacingOccurrences(of: "\\011", with: "\t").replacingOccurrences(of: "\\012", with: "\n")
                .replacingOccurrences(of: "\\134", with: "\\")
            if mounted == path { return String(fields[2]) }
        }
        return nil
    }
}
