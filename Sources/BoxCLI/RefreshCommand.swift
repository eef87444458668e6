import ArgumentParser
import BoxFS
import Foundation
import SystemCalls

/// `boxfs refresh [PATH] [--recursive]`: drops what a mount holds for a folder and lists it again, for a
/// server without an event stream or a change its stream missed. Talks to the mount through the folder's
/// own unlisted control file (`RefreshFile`): the open returns once the folder has been listed again.
struct RefreshCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refresh",
        abstract: "List a folder of a boxfs mount again from Box now.",
        discussion: """
            The mount normally learns of changes made elsewhere from Box's
            event stream within a second or two, and otherwise lists a
            folder again after dir_cache_ttl. `boxfs refresh` does it now:
            the mount drops its listing of the folder, the kernel forgets
            the names and attributes it cached for its entries (and the
            pages of its files, except files being written), and the
            folder is listed again before the command returns. With
            --recursive, every folder below it that the mount has listed
            is dropped and listed again too (folders never listed are
            fetched when next visited anyway).

            PATH is a folder inside a boxfs mount, or a file (its folder is
            refreshed). Prints the number of folders listed again; exits
            1 with one line on stderr for a path that does not exist, is
            not in a boxfs mount, or that Box no longer has.

            Examples:
              boxfs refresh ~/Box/Projects
              cd ~/Box/Projects && boxfs refresh --recursive
            """)

    @Argument(help: "A folder in a boxfs mount, or a file in one (then its folder).")
    var path: String = "."
    @Flag(name: .shortAndLong, help: "Also drop and list again every folder below PATH that the mount has listed.")
    var recursive = false

    func run() async throws {
        do throws(RefreshError) {
            let folder = try Self.folder(of: path)
            let listed = try Self.refresh(folder: folder, recursive: recursive)
            print("\(path): listed \(listed) folder(s) again")
        } catch {
            FileHandle.standardError.write(Data("boxfs refresh: \(error.description)\n".utf8))
            throw ExitCode(1)
        }
    }

    struct RefreshError: Error, CustomStringConvertible {
        let description: String
    }

    /// The absolute folder to refresh: PATH itself, or the folder of a file.
    static func folder(of path: String) throws(RefreshError) -> String {
        guard let resolved = realpath(path, nil) else {
            throw RefreshError(description: "\(path): \(String(cString: strerror(errno)))")
        }
        defer { free(resolved) }
        let absolute = String(cString: resolved)
        let status: stat
        do throws(SystemCallError) { status = try Syscall.status(absolute) } catch {
            throw RefreshError(description: "\(path): \(error.reason)")
        }
        if status.st_mode & S_IFMT == S_IFDIR { return absolute }
        return (absolute as NSString).deletingLastPathComponent
    }

    /// Opens the folder's control file and answers how many folders the mount listed again.
    static func refresh(folder: String, recursive: Bool) throws(RefreshError) -> Int {
        let type = MountTable.filesystemType(containing: folder)
        guard type == "fuse.boxfs" else {
            throw RefreshError(description: "\(folder) is not in a boxfs mount (\(type.map { "it is on \($0)" } ?? "no mount found"))")
        }
        let control = folder + "/" + (recursive ? RefreshFile.recursiveName : RefreshFile.name)
        let descriptor: Int32
        do throws(SystemCallError) { descriptor = try Syscall.open(control, O_RDONLY) } catch {
            let code = error.errno
            if code == ENOENT { throw RefreshError(description: "\(folder): no longer on Box, or the mount's boxfs is too old for refresh") }
            throw RefreshError(description: "\(folder): \(String(cString: strerror(code)))")
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        let data = (try? handle.readToEnd()) ?? Data()
        let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        return object?["listed"] as? Int ?? 0
    }
}

extension MountTable {
    /// The type of the filesystem `path` (absolute, resolved) is on: the deepest mount in /proc/self/mounts that
    /// holds it.
    static func filesystemType(containing path: String) -> String? {
        mount(containing: path)?.type
    }

    /// The deepest mount in /proc/self/mounts that holds `path` (absolute, resolved): its mountpoint and type.
    static func mount(containing path: String) -> (mountpoint: String, type: String)? {
        let table = (try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8)) ?? ""
        var best: (mountpoint: String, type: String)?
        for line in table.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count > 2 else { continue }
            let mountpoint = unescape(String(fields[1]))
            let holds = mountpoint == "/" || path == mountpoint || path.hasPrefix(mountpoint + "/")
            // A later line for the same mountpoint is mounted over the earlier one.
            if holds, mountpoint.count >= (best?.mountpoint.count ?? -1) { best = (mountpoint, String(fields[2])) }
        }
        return best
    }
}
