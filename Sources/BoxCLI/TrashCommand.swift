import ArgumentParser
import BoxFS
import Foundation

/// `boxfs trash [list [PATH]|restore PATH|purge PATH --yes]`: the Box trash of a mount's tree, through the mount
/// (`CommandFile`).
struct TrashCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trash",
        abstract: "List, restore or purge what was deleted from a boxfs mount's tree.",
        discussion: """
            Deleting a file or folder in a boxfs mount (rm, rm -r, a move
            out of the mount) sends it to the Box trash, where it stays
            for as long as the account keeps trash. This command reaches
            it by the path it had in the mount.

            boxfs trash list [FOLDER]
                What was deleted from FOLDER (default: the current folder)
                and below it, one line each: its path, type, size and when
                it was deleted. A folder is one line: what was in it comes
                back with it (rm -r deletes a folder's files one by one
                before the folder; they are not listed on their own).
            boxfs trash restore PATH
                Puts the item that was at PATH back where it was, with
                everything that was inside it and is still in the trash;
                the mount shows it at once.
                If several items were deleted from that path, the last one
                comes back. If the name is taken there, or its folder is
                gone, nothing changes and the line says why.
            boxfs trash purge PATH --yes
                Deletes the item that was at PATH from the trash for good
                (a folder with what was inside it); it cannot be restored
                afterwards. --yes is required.

            Exits 1 with one line on stderr for a path not in a boxfs mount,
            an item not in the trash, or Box's refusal (and why).

            Examples:
              boxfs trash list ~/Box
              rm -r ~/Box/Reports/2024 && boxfs trash restore ~/Box/Reports/2024
              boxfs trash purge ~/Box/old.iso --yes
            """)

    @Argument(help: ArgumentHelp("list, restore or purge.", valueName: "action")) var action: String = "list"
    @Argument(help: "list: a folder (default: the current one); restore, purge: the item's path.") var path: String?
    @Flag(help: "purge: confirm deleting for good.") var yes = false
    @Flag(help: "Print JSON instead of text.") var json = false

    func run() throws {
        try CommandChannel.run("trash") { () throws(CommandChannel.Failure) in
            guard ["list", "restore", "purge"].contains(action) else {
                throw CommandChannel.Failure(description: "\(action): choose list, restore or purge")
            }
            if action != "list", path == nil { throw CommandChannel.Failure(description: "\(action) needs the item's PATH") }
            if action == "purge", !yes {
                throw CommandChannel.Failure(description: "purge deletes \(path ?? "") for good: add --yes to confirm")
            }
            switch action {
            case "list": try list()
            case "restore": try restore()
            default: try purge()
            }
        }
    }

    private func list() throws(CommandChannel.Failure) {
        let target = try CommandChannel.folder(path ?? ".")
        let items = try CommandChannel.send(CommandRequest(op: .trashList), to: target, command: "trash").trash ?? []
        let shown = items.map { item in
            TrashOutput(path: target.folder + "/" + item.path, id: item.id, type: item.type, size: item.size, trashedAt: item.trashedAt)
        }
        if json { return CommandChannel.printJSON(shown) }
        let dates = ISO8601DateFormatter()
        for item in shown {
            print("\(item.path)\(item.type == "folder" ? "/" : "")\t\(item.type)\t\(item.size)\t\(item.trashedAt.map { dates.string(from: $0) } ?? "-")")
        }
    }

    private func restore() throws(CommandChannel.Failure) {
        let target = try place()
        let answer = try CommandChannel.send(CommandRequest(op: .trashRestore), to: target, command: "trash")
        let restored = answer.restoredPath.map { target.folder + "/" + $0 } ?? target.path
        if json { return CommandChannel.printJSON(["restored": restored]) }
        print("\(restored): restored")
    }

    private func purge() throws(CommandChannel.Failure) {
        let target = try place()
        _ = try CommandChannel.send(CommandRequest(op: .trashPurge), to: target, command: "trash")
        if json { return CommandChannel.printJSON(["purged": target.path]) }
        print("\(target.path): deleted for good")
    }

    /// The place the item was; its folder must be in the mount.
    private func place() throws(CommandChannel.Failure) -> CommandChannel.Target {
        let given = path ?? ""
        let folder = URL(fileURLWithPath: given).deletingLastPathComponent().path
        guard FileManager.default.fileExists(atPath: folder) else {
            throw CommandChannel.Failure(description: "\(given): its folder \(folder) is not there (if it is in the trash too, restore it first)")
        }
        return try CommandChannel.place(given)
    }
}

struct TrashOutput: Encodable {
    var path: String
    var id: String
    var type: String
    var size: Int64
    var trashedAt: Date?
}
