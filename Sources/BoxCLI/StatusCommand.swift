import ArgumentParser
import BoxFS
import BoxFUSE
import Foundation

/// `boxfs status [MOUNTPOINT] [--json]`: uploads waiting or running, with progress, and recent
/// errors, read from the mount's unlisted status file (`StatusFile`: no socket, and only mounts the
/// caller can reach).
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show pending and running uploads and recent errors of boxfs mounts.")

    @Argument(help: "A boxfs mountpoint (default: every boxfs mount).") var mountpoint: String?
    @Flag(help: "Print JSON instead of text.") var json = false

    func run() async throws {
        let mountpoints = try mountpoint.map { [try Self.resolve($0)] } ?? Self.boxfsMounts()
        var reports: [(String, StatusReport)] = []
        for path in mountpoints {
            do { reports.append((path, try Self.read(path))) } catch {
                FileHandle.standardError.write(Data("boxfs status: \(path): \(error)\n".utf8))
                if mountpoint != nil { throw ExitCode(1) }
            }
        }
        if json {
            let objects = reports.map { Self.jsonObject(mountpoint: $0.0, report: $0.1) }
            let value: Any = mountpoint != nil ? objects.first ?? [:] : objects
            let data = try JSONSerialization.data(
                withJSONObject: value, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
            print(String(decoding: data, as: UTF8.self))
        } else if reports.isEmpty {
            print("no boxfs mounts")
        } else {
            for (path, report) in reports { print(StatusText.render(mountpoint: path, report: report)) }
        }
    }

    static func resolve(_ path: String) throws -> String {
        guard let resolved = realpath(path, nil) else {
            throw ValidationError("\(path): \(String(cString: strerror(errno)))")
        }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Mountpoints of type fuse.boxfs in /proc/mounts (octal escapes such as \040 decoded). For a
    /// user other than root, only their own mounts (the kernel's `user_id=`): others' would only
    /// answer "Permission denied".
    static func boxfsMounts() -> [String] {
        let table = (try? String(contentsOfFile: "/proc/mounts", encoding: .utf8)) ?? ""
        let uid = geteuid()
        return table.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count > 3, fields[2] == "fuse.boxfs" else { return nil }
            if uid != 0, !fields[3].split(separator: ",").contains(Substring("user_id=\(uid)")) { return nil }
            return MountTable.unescape(String(fields[1]))
        }
    }

    static func read(_ path: String) throws -> StatusReport {
        do { return try StatusReport.decode(try StatusFile.read(mountpoint: path)) } catch let error as StatusFile.ReadError {
            throw ValidationError(error.description)
        }
    }

    static func jsonObject(mountpoint: String, report: StatusReport) -> [String: Any] {
        [
            "mountpoint": mountpoint, "read_only": report.readOnly, "pending": report.pending,
            "offline_since": report.offlineSince.map { ISO8601DateFormatter().string(from: $0) } ?? NSNull(),
            "offline_reason": report.offlineReason ?? NSNull(), "log": report.log ?? NSNull(),
            "uploading": report.uploading,
            "events": report.events ?? NSNull(),
            "events_since": report.eventsSince.map { ISO8601DateFormatter().string(from: $0) } ?? NSNull(),
            "events_position": report.eventsPosition ?? NSNull(),
            "events_error": report.eventsError ?? NSNull(),
            "cached_listings": report.cachedListings ?? NSNull(),
            "cached_listing_entries": report.cachedListingEntries ?? NSNull(),
            "nodes": report.nodes ?? NSNull(),
            "pinned": report.pinned.map { pinned -> [String: Any] in
                [
                    "pins": pinned.pins, "files": pinned.files, "files_done": pinned.filesDone, "bytes": pinned.bytes,
                    "bytes_done": pinned.bytesDone, "bytes_to_fetch": pinned.bytes - pinned.bytesDone,
                    "fetching": pinned.fetching ?? NSNull(), "error": pinned.error ?? NSNull(),
                ]
            } ?? NSNull(),
            "recovered": report.recovered.map { recovered -> [String: Any] in
                ["directory": recovered.directory, "count": recovered.files.count, "files": recovered.files]
            } ?? NSNull(),
            "pacing": (report.pacing ?? []).map { wait -> [String: Any] in
                ["limit": wait.limit, "waiting": wait.waiting, "per_window": wait.perWindow]
            },
            "uploads": report.uploads.map { upload -> [String: Any] in
                [
                    "name": upload.name, "path": mountpoint + "/" + upload.name, "state": upload.state, "bytes_sent": upload.bytesSent,
                    "bytes_total": upload.bytesTotal, "attempts": upload.attempts,
                    "last_error": upload.lastError ?? NSNull(),
                    "next_attempt": upload.nextAttempt.map { ISO8601DateFormatter().string(from: $0) } ?? NSNull(),
                ]
            },
            "recent_errors": report.recentErrors.map { line -> [String: Any] in
                ["date": ISO8601DateFormatter().string(from: line.date), "name": line.name, "message": line.message]
            },
        ]
    }
}

/// `/proc/mounts` escapes space, tab, newline and backslash as octal (`\040`).
enum MountTable {
    static func unescape(_ field: String) -> String {
        var bytes: [UInt8] = []
        var scalars = Array(field.utf8)[...]
        while let byte = scalars.popFirst() {
            if byte == UInt8(ascii: "\\"), scalars.count >= 3,
                let value = UInt8(String(decoding: scalars.prefix(3), as: UTF8.self), radix: 8)
            {
                bytes.append(value)
                scalars = scalars.dropFirst(3)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// The text form of a status report.
enum StatusText {
    static func render(mountpoint: String, report: StatusReport) -> String {
        var lines = ["\(mountpoint): " + summary(report)]
        if let since = report.offlineSince {
            let waiting = counted(report.uploads.count, "change", "changes")
            lines.append("  offline since \(ISO8601DateFormatter().string(from: since)), \(waiting) waiting: "
                + (report.offlineReason ?? "Box cannot be reached"))
        }
        for upload in report.uploads {
            var line = "  \(upload.state.padding(toLength: 9, withPad: " ", startingAt: 0)) \(mountpoint)/\(upload.name)"
            if upload.bytesTotal > 0 {
                let percent = upload.bytesSent * 100 / max(upload.bytesTotal, 1)
                line += "  \(bytes(upload.bytesSent)) of \(bytes(upload.bytesTotal)) (\(percent)%)"
            }
            if upload.attempts > 0 { line += "  \(upload.attempts) failed attempt(s)" }
            if let error = upload.lastError { line += "\n      last error: \(error)" }
            if let next = upload.nextAttempt {
                line += "\n      next try: \(ISO8601DateFormatter().string(from: next)) (`boxfs retry` tries now)"
            }
            lines.append(line)
        }
        if !report.recentErrors.isEmpty {
            lines.append("  recent errors:")
            let formatter = ISO8601DateFormatter()
            for error in report.recentErrors.suffix(10) {
                lines.append("    \(formatter.string(from: error.date))  \(error.name): \(error.message)")
            }
        }
        if let line = recoveredLines(report) { lines.append(line) }
        for wait in report.pacing ?? [] { lines.append("  " + wait.line) }
        if let line = eventsLine(report) { lines.append(line) }
        if let line = pinnedLine(report) { lines.append(line) }
        if let listings = report.cachedListings, let entries = report.cachedListingEntries, let nodes = report.nodes {
            lines.append("  in memory: \(listings) folder listing(s) of \(counted(entries, "entry", "entries")), \(nodes) node(s) the kernel holds")
        }
        if let log = report.log { lines.append("  log: \(log)") }
        return lines.joined(separator: "\n")
    }

    /// `changes elsewhere: following Box's events (position N)` or `... listed again every dir_cache_ttl
    /// since DATE (the event stream failed: REASON)`.
    static func eventsLine(_ report: StatusReport) -> String? {
        guard let phase = report.events else { return nil }
        let since = report.eventsSince.map { ISO8601DateFormatter().string(from: $0) } ?? "?"
        let position = report.eventsPosition.map { " (position \($0))" } ?? ""
        switch phase {
        case "following": return "  changes elsewhere: following Box's events since \(since)\(position)"
        case "fallback":
            return "  changes elsewhere: listed again every dir_cache_ttl since \(since)\(position); event stream: \(report.eventsError ?? "failed")"
        case "starting": return "  changes elsewhere: starting to follow Box's events"
        default: return "  changes elsewhere: listed again every dir_cache_ttl (events=off)"
        }
    }

    /// `pinned: 2 item(s), 1.2 MB of 3.4 MB here (35%), 2.2 MB to fetch (3 of 5 files)`, and what is being
    /// fetched or the last error.
    static func pinnedLine(_ report: StatusReport) -> String? {
        guard let pinned = report.pinned else { return nil }
        let percent = pinned.bytes > 0 ? pinned.bytesDone * 100 / pinned.bytes : (pinned.filesDone == pinned.files ? 100 : 0)
        var line = "  pinned: \(pinned.pins) item(s), \(bytes(pinned.bytesDone)) of \(bytes(pinned.bytes)) here (\(percent)%), "
            + "\(bytes(pinned.bytes - pinned.bytesDone)) to fetch (\(pinned.filesDone) of \(pinned.files) file(s) here)"
        if let fetching = pinned.fetching { line += "; fetching /\(fetching)" }
        if let error = pinned.error { line += "\n      last error: \(error)" }
        return line
    }

    /// `recovered: 2 file(s) whose folder was deleted on Box, kept in DIR`, and the first 10 of them.
    static func recoveredLines(_ report: StatusReport) -> String? {
        guard let recovered = report.recovered, !recovered.files.isEmpty else { return nil }
        var lines = ["  recovered: \(recovered.files.count) file(s) whose folder was deleted on Box, kept in \(recovered.directory)"]
        for file in recovered.files.prefix(10) { lines.append("    \(recovered.directory)/\(file)") }
        if recovered.files.count > 10 { lines.append("    … and \(recovered.files.count - 10) more") }
        return lines.joined(separator: "\n")
    }

    private static func summary(_ report: StatusReport) -> String {
        if report.readOnly { return "read-only, no uploads" }
        if report.pending == 0 { return "all changes are on Box" }
        return "\(report.pending) upload(s) pending, \(report.uploading) running"
    }

    /// "3 B", "999 B", "1.5 kB", "80.0 MB", "2.1 GB": as the core says sizes in its messages.
    static func bytes(_ count: Int64) -> String { FileSystem.byteText(count) }
}
