import ArgumentParser
import BoxFS
import Foundation

/// `boxfs link PATH [--access ...] [--password-file F] [--expires DATE] [--no-download] [--remove]`: creates or
/// updates the shared link of a file or folder through its mount (`CommandFile`) and prints its URL.
struct LinkCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "link",
        abstract: "Print the shared link of a file or folder of a boxfs mount, creating it if needed.",
        discussion: """
            Creates the item's shared link, or updates the one it has (its
            URL stays the same), and prints the URL. Options left out keep
            the link's current settings (for a new link, Box's defaults).

            --access open          anyone with the link
            --access company       people in the owner's company, signed in
            --access collaborators people invited to the item or a folder above

            --password-file F sets a password (open links only; Box wants at
            least 8 characters with a digit, an upper-case letter or a
            special character). The password is read from the first line
            of F, which, like any secret file, must not be readable by
            group or others (chmod 600 F); it is sent to the mount over
            its private channel, never on the command line, and appears
            in no log or message. --expires DATE makes the link stop
            working then (2026-12-31, 2026-12-31T18:00:00Z, or 7d from
            now). --no-download lets people preview but not download.
            --remove deletes the link: its URL stops working at once.

            Exits 1 with one line on stderr for a path that does not
            exist or is not in a boxfs mount, an unsafe or unreadable
            password file, or settings Box refuses (with Box's reason).

            Examples:
              boxfs link ~/Box/report.pdf
              boxfs link ~/Box/Photos --access company --expires 30d
              boxfs link ~/Box/offer.pdf --password-file ~/.offer-pw --no-download
              boxfs link ~/Box/report.pdf --remove
            """)

    @Argument(help: "A file or folder in a boxfs mount.") var path: String
    @Option(help: ArgumentHelp("Who may use the link: open, company or collaborators.", valueName: "level"))
    var access: String?
    @Option(help: ArgumentHelp("A file (mode 600) whose first line is the link's password.", valueName: "file"))
    var passwordFile: String?
    @Option(help: ArgumentHelp("When the link stops working: a date (2026-12-31) or a duration (30d).", valueName: "date"))
    var expires: String?
    @Flag(help: "Allow previews only, no downloads.") var noDownload = false
    @Flag(help: "Remove the link instead.") var remove = false
    @Flag(help: "Print JSON instead of the URL.") var json = false

    func run() throws {
        try CommandChannel.run("link") { () throws(CommandChannel.Failure) in
            if let access, !["open", "company", "collaborators"].contains(access) {
                throw CommandChannel.Failure(description: "--access \(access): choose open, company or collaborators")
            }
            if remove, access != nil || passwordFile != nil || expires != nil || noDownload {
                throw CommandChannel.Failure(description: "--remove takes no other link option")
            }
            let target = try CommandChannel.existing(path)
            let answer = try CommandChannel.send(try request(), to: target, command: "link")
            if json {
                CommandChannel.printJSON(PathAndValue(path: target.path, key: "link", value: answer.link))
            } else if let link = answer.link {
                print(link.url)
            } else {
                print("\(target.path): shared link removed")
            }
        }
    }

    private func request() throws(CommandChannel.Failure) -> CommandRequest {
        var request = CommandRequest(op: .link)
        guard !remove else {
            request.remove = true
            return request
        }
        request.access = access
        if let expires {
            guard let date = CommandTime.parse(expires) else {
                throw CommandChannel.Failure(description: "--expires \(expires): give a date (2026-12-31) or a duration (30d)")
            }
            request.expiresAt = date
        }
        if noDownload { request.preventDownload = true }
        if let passwordFile {
            let text: String
            do { text = try SecretFile.text(of: passwordFile, what: "password file") } catch {
                throw CommandChannel.Failure(description: "\(error)")
            }
            let password = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first
                .map { String($0).trimmingCharacters(in: CharacterSet(charactersIn: "\r")) } ?? ""
            guard !password.isEmpty else {
                throw CommandChannel.Failure(description: "the password file \(passwordFile) is empty")
            }
            request.password = password
        }
        return request
    }
}
