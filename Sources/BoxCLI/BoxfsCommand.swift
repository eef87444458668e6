import ArgumentParser
import Foundation

/// `boxfs`: the command with subcommands; `mount.boxfs` is the same binary under another name.
struct BoxfsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "boxfs",
        abstract: "Box cloud storage as a Linux filesystem.",
        version: BoxfsVersion.string,
        subcommands: [
            MountCommand.self, UnmountCommand.self, StatusCommand.self, RetryCommand.self, RefreshCommand.self,
            VersionsCommand.self, RestoreCommand.self, TrashCommand.self, LinkCommand.self, LockCommand.self,
            UnlockCommand.self, SearchCommand.self, WatchCommand.self, InfoCommand.self, PinCommand.self,
            UnpinCommand.self, PinnedCommand.self, LoginCommand.self, LogoutCommand.self,
            ProfileCommand.self,
        ])
}

/// `boxfs unmount MOUNTPOINT`: the same as `fusermount3 -u MOUNTPOINT`.
struct UnmountCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unmount", abstract: "Unmount a boxfs mount.",
        discussion: """
            The same as `fusermount3 -u MOUNTPOINT` (or `umount` as root), for a boxfs
            mount only. The daemon sends pending uploads before it exits, for up to
            upload_wait seconds; what is left goes up at the next mount.
            """)

    @Argument(help: "The folder a boxfs mount is on.") var mountpoint: String

    func run() async throws {
        let absolute = mountpoint.hasPrefix("/") ? mountpoint : FileManager.default.currentDirectoryPath + "/" + mountpoint
        let path = URL(fileURLWithPath: absolute).standardizedFileURL.path
        let type = Mountpoint.mountedFilesystem(at: (try? StatusCommand.resolve(path)) ?? path)
        guard type == "fuse.boxfs" else {
            let what = type.map { "it is a \($0) mount" } ?? "nothing is mounted there"
            FileHandle.standardError.write(Data("boxfs unmount: \(mountpoint) is not a boxfs mount (\(what))\n".utf8))
            throw ExitCode(1)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/fusermount3")
        process.arguments = ["-u", path]
        try process.run()
        process.waitUntilExit()
        throw ExitCode(process.terminationStatus)
    }
}

/// Chooses the command from how the binary was called.
public enum BoxfsEntry {
    /// The name the binary was called by (`boxfs`, `mount.boxfs`, `mount.fuse.boxfs`).
    static var calledName: String {
        (CommandLine.arguments.first ?? "boxfs").split(separator: "/").last.map(String.init) ?? "boxfs"
    }
    static var calledAsMountHelper: Bool { calledName.hasPrefix("mount.") }

    public static func main() async {
        let rest = Array(CommandLine.arguments.dropFirst())
        // mount(8) runs `mount.boxfs` or `mount.fuse.boxfs`; mount.fuse3 runs `boxfs SOURCE MOUNTPOINT -o ...`.
        if calledAsMountHelper || rest.first.map(isMountSource) == true {
            await MountCommand.main(rest)
        } else {
            await BoxfsCommand.main(rest)
        }
    }

    private static func isMountSource(_ word: String) -> Bool {
        word.hasPrefix("box:") || word.hasPrefix("https://") || word.hasPrefix("http://")
            || word == MountCommand.sourceInEnvironment
    }
}
