import ArgumentParser
import BoxFS
import Foundation

/// `boxfs search QUERY [--in PATH] [--ext E] [--type file|folder] [--json]`: Box's search, answered as paths of
/// the mount (`CommandFile`).
struct SearchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Search Box for files and folders of a boxfs mount; prints their paths.",
        discussion: """
            Asks Box's search for QUERY among the names, descriptions and
            text of the files below a folder of the mount (--in, default
            the current folder) and prints the path in the mount of each
            result, one per line, most relevant first, so the output can
            be fed to other tools:

              boxfs search invoice --ext pdf | xargs -d '\\n' grep -l ACME

            QUERY uses Box's syntax: words match whole words in any case;
            "an exact phrase" in quotes; AND, OR and NOT (upper case).
            --ext keeps files with that extension (repeat it for more);
            --type keeps only files or only folders. Box's index follows
            changes after a delay (seconds to minutes on Box), so a file
            saved a moment ago may not be found yet. Results outside the
            mounted folder (items shared from elsewhere) are left out;
            at most 1000 results.

            Exits 1 with one line on stderr for a folder not in a boxfs
            mount or Box's refusal; finding nothing is not an error.

            Examples:
              boxfs search "quarterly report" --in ~/Box/Finance
              cd ~/Box && boxfs search budget --type folder --json
            """)

    @Argument(help: "What to look for (Box's search syntax).") var query: String
    @Option(name: .customLong("in"), help: ArgumentHelp("The folder to search below (default: the current one).", valueName: "path"))
    var folder: String = "."
    @Option(name: .customLong("ext"), help: ArgumentHelp("Only files with this extension (repeatable).", valueName: "ext"))
    var extensions: [String] = []
    @Option(help: ArgumentHelp("Only file or only folder results.", valueName: "type")) var type: String?
    @Flag(help: "Print JSON instead of one path per line.") var json = false

    func run() throws {
        try CommandChannel.run("search") { () throws(CommandChannel.Failure) in
            if let type, type != "file", type != "folder" {
                throw CommandChannel.Failure(description: "--type \(type): choose file or folder")
            }
            let target = try CommandChannel.folder(folder)
            var request = CommandRequest(op: .search)
            request.query = query
            request.extensions = extensions.flatMap { $0.split(separator: ",").map { String($0.drop { $0 == "." }) } }
            request.type = type
            let paths = (try CommandChannel.send(request, to: target, command: "search").paths ?? [])
                .map { target.folder == "/" ? "/" + $0 : target.folder + "/" + $0 }
            if json { return CommandChannel.printJSON(paths) }
            for path in paths { print(path) }
        }
    }
}
