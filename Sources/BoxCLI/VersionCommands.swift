import ArgumentParser
import BoxFS
import Foundation

/// `boxfs versions PATH`: the earlier versions Box keeps of a file, read through its mount (`CommandFile`).
struct VersionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "versions",
        abstract: "List the earlier versions Box keeps of a file of a boxfs mount.",
        discussion: """
            Box keeps a version for every save (every upload the mount
            makes when a file is written and closed), as far as the
            account's plan keeps versions. Prints one line per earlier
            version, oldest first: its number (1 is the first upload; the
            current version, not listed, is one more than the last), when
            it was saved, by whom, its size in bytes and its SHA-1.
            `boxfs restore PATH --version N` brings one back.

            Exits 1 with one line on stderr for a path that does not exist
            or is not in a boxfs mount, a folder, or Box's refusal.

            Examples:
              boxfs versions ~/Box/notes.txt
              boxfs versions ~/Box/notes.txt --json
            """)

    @Argument(help: "A file in a boxfs mount.") var path: String
    @Flag(help: "Print JSON instead of text.") var json = false

    func run() throws {
        try CommandChannel.run("versions") { () throws(CommandChannel.Failure) in
            let target = try CommandChannel.existing(path)
            let versions = try CommandChannel.send(CommandRequest(op: .versions), to: target, command: "versions").versions ?? []
            if json {
                CommandChannel.printJSON(VersionsOutput(path: target.path, versions: versions))
                return
            }
            if versions.isEmpty { print("\(target.path): no earlier versions") }
            let dates = ISO8601DateFormatter()
            for version in versions {
                let when = version.modifiedAt.map { dates.string(from: $0) } ?? "-"
                print("\(version.number)\t\(when)\t\(version.modifiedBy ?? "-")\t\(version.size)\t\(version.sha1 ?? "-")")
            }
        }
    }
}

struct VersionsOutput: Encodable {
    var path: String
    var versions: [CommandAnswer.Version]
}

/// `boxfs restore PATH --version N`: makes an earlier version the current one again.
struct RestoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Make an earlier version of a file of a boxfs mount its current version again.",
        discussion: """
            Box makes a new current version with the content of version N
            (as numbered by `boxfs versions PATH`); the version that was
            current stays among the earlier ones, so a restore can itself
            be undone. The mount shows the restored content at once:
            `cat PATH` right after the command prints version N's bytes.

            A file with changes written through the mount that are not on
            Box yet is refused (restore it once `boxfs status` no longer
            lists its upload): its upload would otherwise land on top of
            the restored version, or become a conflicted copy.

            Exits 1 with one line on stderr for a path that does not exist
            or is not in a boxfs mount, a version the file does not have,
            a file still uploading, or Box's refusal (a file locked by
            someone else: 403 access_denied_item_locked).

            Example:
              boxfs versions ~/Box/notes.txt
              boxfs restore ~/Box/notes.txt --version 2
            """)

    @Argument(help: "A file in a boxfs mount.") var path: String
    @Option(help: ArgumentHelp("The earlier version to restore, as `boxfs versions` numbers it.", valueName: "n"))
    var version: Int
    @Flag(help: "Print JSON instead of text.") var json = false

    func run() throws {
        try CommandChannel.run("restore") { () throws(CommandChannel.Failure) in
            let target = try CommandChannel.existing(path)
            var request = CommandRequest(op: .restore)
            request.version = version
            let answer = try CommandChannel.send(request, to: target, command: "restore")
            if json {
                CommandChannel.printJSON(RestoreOutput(path: target.path, restoredVersion: answer.restoredVersion ?? version))
            } else {
                print("\(target.path): version \(version) restored")
            }
        }
    }
}

struct RestoreOutput: Encodable {
    var path: String
    var restoredVersion: Int
}
