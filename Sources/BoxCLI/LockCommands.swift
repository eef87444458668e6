import ArgumentParser
import BoxFS
import Foundation

/// `boxfs lock PATH [--expires IN] [--no-download]`: locks a file on Box through its mount (`CommandFile`).
struct LockCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lock",
        abstract: "Lock a file of a boxfs mount on Box, so that others cannot change it.",
        discussion: """
            While a file is locked, Box refuses everyone but the lock's
            owner a new version, rename, move, delete or shared link of
            it. The lock is made by the mount's Box user, with the
            mount's own rights, so the mount that locked the file keeps
            writing it; other mounts and users get "Permission denied"
            for writes (their mounts show the file read-only) until
            `boxfs unlock PATH` or the lock expires. Locking a file that
            is already locked by the same user replaces that lock.

            --expires takes a duration from now (90s, 30m, 2h, 7d, 1w) or a
            date (2026-12-31, 2026-12-31T18:00:00Z); without it the lock
            lasts until it is removed. --no-download also keeps others
            from downloading the file.

            Prints who holds the lock and until when; exits 1 with one
            line on stderr for a path that does not exist or is not in a
            boxfs mount, a folder (Box locks files only), or a lock Box
            refuses (another user's lock: 403 access_denied_item_locked).

            Examples:
              boxfs lock ~/Box/plan.xlsx --expires 2h
              boxfs lock ~/Box/contract.pdf --no-download --json
            """)

    @Argument(help: "A file in a boxfs mount.") var path: String
    @Option(help: ArgumentHelp("When the lock ends: a duration (30m, 2h, 7d) or a date.", valueName: "in"))
    var expires: String?
    @Flag(help: "Keep other users from downloading the file while it is locked.") var noDownload = false
    @Flag(help: "Print JSON instead of text.") var json = false

    func run() throws {
        try CommandChannel.run("lock") { () throws(CommandChannel.Failure) in
            var request = CommandRequest(op: .lock)
            if let expires {
                guard let date = CommandTime.parse(expires) else {
                    throw CommandChannel.Failure(description: "--expires \(expires): give a duration (30m, 2h, 7d) or a date (2026-12-31)")
                }
                request.expiresAt = date
            }
            request.preventDownload = noDownload
            let target = try CommandChannel.existing(path)
            let answer = try CommandChannel.send(request, to: target, command: "lock")
            if json {
                CommandChannel.printJSON(PathAndValue(path: target.path, key: "lock", value: answer.lock))
            } else {
                let lock = answer.lock
                let until = lock?.expiresAt.map { "until \(ISO8601DateFormatter().string(from: $0))" } ?? "until unlocked"
                let by = lock?.createdBy.map { " by \($0)" } ?? ""
                print("\(target.path): locked\(by) \(until)\(lock?.isDownloadPrevented == true ? ", downloads prevented" : "")")
            }
        }
    }
}

/// `boxfs unlock PATH`: removes the mount's user's lock on a file.
struct UnlockCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlock",
        abstract: "Remove the lock on a file of a boxfs mount.",
        discussion: """
            Removes the lock that `boxfs lock` (or Box's web app, as the
            same user) put on the file; others can change it again at
            once. Only the lock's owner can remove it: a lock held by
            another user is refused (403 access_denied_item_locked).
            Unlocking a file that is not locked succeeds.

            Exits 1 with one line on stderr for a path that does not
            exist or is not in a boxfs mount, a folder, or a refusal.

            Example:
              boxfs unlock ~/Box/plan.xlsx
            """)

    @Argument(help: "A file in a boxfs mount.") var path: String
    @Flag(help: "Print JSON instead of text.") var json = false

    func run() throws {
        try CommandChannel.run("unlock") { () throws(CommandChannel.Failure) in
            let target = try CommandChannel.existing(path)
            _ = try CommandChannel.send(CommandRequest(op: .unlock), to: target, command: "unlock")
            if json {
                CommandChannel.printJSON(PathAndValue<CommandAnswer.Lock>(path: target.path, key: "lock", value: nil))
            } else {
                print("\(target.path): unlocked")
            }
        }
    }
}
