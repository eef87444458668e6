import ArgumentParser
import BoxFS
import Foundation
import SystemCalls

/// The client side of a mount's command channel (`CommandFile`): finds the mount and folder a PATH is in,
/// sends one request through `<folder>/.boxfs\command` and reads the answer. Credentials are never read
/// here: the mount acts with its own.
enum CommandChannel {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Where a PATH of a mount is: the folder whose command file to open, the name of the item in it (nil for
    /// the mount's root itself), and the absolute path shown for it.
    struct Target {
        var folder: String
        var name: String?
        var path: String { name.map { folder == "/" ? "/" + $0 : folder + "/" + $0 } ?? folder }
    }

    /// The item at `path`, which must exist (followed through symlinks, `..` and relative paths).
    static func existing(_ path: String) throws(Failure) -> Target {
        let absolute = try resolved(path)
        let mountpoint = try boxfsMountpoint(of: absolute, shownAs: path)
        if absolute == mountpoint { return Target(folder: absolute, name: nil) }
        let url = URL(fileURLWithPath: absolute)
        return Target(folder: url.deletingLastPathComponent().path, name: url.lastPathComponent)
    }

    /// The place `path` names, which need not exist (a trashed item): its folder must.
    static func place(_ path: String) throws(Failure) -> Target {
        let url = URL(fileURLWithPath: path)
        let name = url.lastPathComponent
        guard !name.isEmpty, name != ".", name != "..", name != "/" else { return try existing(path) }
        let folder = try resolved(url.deletingLastPathComponent().path, shownAs: path)
        _ = try boxfsMountpoint(of: folder, shownAs: path)
        return Target(folder: folder, name: name)
    }

    /// A folder of a mount (`--in`, `trash list`): the folder itself is the target.
    static func folder(_ path: String) throws(Failure) -> Target {
        let absolute = try resolved(path)
        _ = try boxfsMountpoint(of: absolute, shownAs: path)
        guard let status = try? Syscall.status(absolute), status.st_mode & S_IFMT == S_IFDIR else {
            throw Failure(description: "\(path): not a folder")
        }
        return Target(folder: absolute, name: nil)
    }

    /// Sends `request` (its `name` set from `target`) and answers the mount's answer, or throws its error line.
    static func send(_ request: CommandRequest, to target: Target, command: String) throws(Failure) -> CommandAnswer {
        var request = request
        request.name = target.name
        let body: Data
        do { body = try CommandFile.encoder.encode(request) } catch {
            throw Failure(description: "the request could not be encoded: \(error)")
        }
        let control = target.folder + "/" + CommandFile.name
        var opened = Result { () throws(SystemCallError) in try Syscall.open(control, O_RDWR) }
        var carried = false
        if case .failure(let failure) = opened, failure.errno == EROFS, !request.op.changesBox {
            // A read-only mount: the request travels in the name of a file opened read-only (`CommandQueries`).
            let name = CommandFile.queryName(for: body)
            guard name.utf8.count <= Int(NAME_MAX) else {
                throw Failure(description: "\(target.path): the request is too long for a read-only mount (a shorter name or query)")
            }
            opened = Result { () throws(SystemCallError) in try Syscall.open(target.folder + "/" + name, O_RDONLY) }
            carried = true
        }
        let descriptor: Int32
        switch opened {
        case .success(let opened): descriptor = opened
        case .failure(let failure):
            let code = failure.errno
            switch code {
            case ENOENT:
                throw Failure(description: "\(target.folder): this mount's boxfs is too old for `boxfs \(command)` (unmount and mount it again)")
            case EACCES, EPERM:
                throw Failure(description: "\(target.folder): only the user who mounted it can run commands on this mount")
            case EROFS:
                // The kernel refuses the read-write open of the channel on a read-only mount (`ro`, `downscope`).
                throw Failure(description: "\(target.folder) is on a read-only boxfs mount; `boxfs \(command)` changes Box and needs a read-write one")
            default:
                throw Failure(description: "\(target.folder): \(String(cString: strerror(code)))")
            }
        }
        defer { Syscall.close(descriptor) }
        if !carried {
            do throws(SystemCallError) { try Syscall.writeAll(descriptor, body, path: control) } catch {
                throw Failure(description: "\(target.folder): sending the request: \(error.reason)")
            }
        }
        var answer = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            // Read once: the mount answers EINTR when the command was interrupted, and a retry could run it again.
            let read = buffer.withUnsafeMutableBytes { bytes in
                Result { () throws(SystemCallError) in try Syscall.readOnce(descriptor, into: bytes, at: Int64(answer.count), path: control) }
            }
            let count: Int
            switch read {
            case .success(let read): count = read
            case .failure(let failure) where failure.errno == EINTR:
                throw Failure(description: "interrupted; Box may or may not have made the change")
            case .failure(let failure):
                throw Failure(description: "\(target.folder): reading the answer: \(failure.reason)")
            }
            if count == 0 { break }
            answer.append(contentsOf: buffer[0..<count])
        }
        let decoded: CommandAnswer
        do { decoded = try CommandFile.decoder.decode(CommandAnswer.self, from: answer) } catch {
            throw Failure(description: "\(target.folder): the mount's answer could not be read (is the mount's boxfs another version?)")
        }
        if let error = decoded.error { throw Failure(description: error) }
        return decoded
    }

    /// Runs `body`, turning a `Failure` into one line on stderr (`boxfs COMMAND: ...`) and exit status 1.
    static func run(_ command: String, _ body: () throws(Failure) -> Void) throws {
        do throws(Failure) {
            try body()
        } catch {
            FileHandle.standardError.write(Data("boxfs \(command): \(error.description)\n".utf8))
            throw ExitCode(1)
        }
    }

    /// Prints a value as JSON (sorted keys, RFC 3339 dates, slashes unescaped).
    static func printJSON(_ value: some Encodable) {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        guard let data = try? encoder.encode(value) else { return }
        print(String(decoding: data, as: UTF8.self))
    }

    private static func resolved(_ path: String, shownAs shown: String? = nil) throws(Failure) -> String {
        guard let resolved = realpath(path, nil) else {
            throw Failure(description: "\(shown ?? path): \(String(cString: strerror(errno)))")
        }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static func boxfsMountpoint(of absolute: String, shownAs path: String) throws(Failure) -> String {
        guard let mount = MountTable.mount(containing: absolute), mount.type == "fuse.boxfs" else {
            let type = MountTable.mount(containing: absolute)?.type
            throw Failure(description: "\(path) is not in a boxfs mount (\(type.map { "it is on \($0)" } ?? "no mount found"))")
        }
        return mount.mountpoint
    }
}

/// Parses the times commands take: a duration from now (`30m`, `2h`, `7d`, `1w`) or a date
/// (`2026-12-31`, `2026-12-31T18:00:00Z`).
enum CommandTime {
    static func parse(_ text: String, now: Date = Date()) -> Date? {
        if let duration = seconds(text) { return now.addingTimeInterval(duration) }
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withFullDate]
        return formatter.date(from: text)
    }

    /// `90s`, `30m`, `2h`, `7d`, `1w` in seconds; nil for anything else.
    static func seconds(_ text: String) -> Double? {
        guard let unit = text.last, let count = Double(text.dropLast()), count > 0 else { return nil }
        switch unit {
        case "s": return count
        case "m": return count * 60
        case "h": return count * 3600
        case "d": return count * 86_400
        case "w": return count * 604_800
        default: return nil
        }
    }
}

/// `{"path": PATH, KEY: VALUE}` with `null` for no value: what `lock`, `unlock` and `link` print with --json.
struct PathAndValue<Value: Encodable>: Encodable {
    var path: String
    var key: String
    var value: Value?

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(path, forKey: Key(stringValue: "path"))
        try container.encode(value, forKey: Key(stringValue: key))
    }
}
