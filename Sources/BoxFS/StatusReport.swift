import Foundation
import SystemCalls
import WriteBack

/// What `boxfs status` shows for one mount: the uploads waiting or running, and recent errors.
/// The daemon serves it as JSON in a file of the mount's root that is never listed (`StatusFile`),
/// so the command needs no socket and sees exactly the mounts its user can see.
public struct StatusReport: Codable, Sendable, Equatable {
    public struct Upload: Codable, Sendable, Equatable {
        /// The file's path below the mount's root (`docs/report.txt`): from the tree while its folder is in
        /// memory, else as the journal kept it (`FileSystem+UploadFolderPaths`); its name alone only for an
        /// entry journaled before the journal kept paths.
        public var name: String
        public var state: String
        public var bytesSent: Int64
        public var bytesTotal: Int64
        public var attempts: Int
        public var lastError: String?
        /// When a parked or backing-off upload is tried next.
        public var nextAttempt: Date?
    }

    public struct ErrorLine: Codable, Sendable, Equatable {
        public var date: Date
        public var name: String
        public var message: String
    }

    public var readOnly: Bool
    public var pending: Int
    public var uploading: Int
    public var uploads: [Upload]
    public var recentErrors: [ErrorLine]
    /// Since when Box cannot be reached, and why (nil while it answers).
    public var offlineSince: Date?
    public var offlineReason: String?
    /// Where the daemon writes its log (a file, "syslog", or "stderr").
    public var log: String?
    /// Box's event stream: `following`, `fallback` (listings trusted for dir_cache_ttl only), `starting` or `off`.
    public var events: String?
    /// Since when the event stream is in that state.
    public var eventsSince: Date?
    /// The last event stream position applied.
    public var eventsPosition: String?
    /// Why the event stream failed (fallback).
    public var eventsError: String?

    /// Folder listings cached, the entries they hold in all, and the nodes the kernel holds (see
    /// `InodeTable+Eviction`).
    public var cachedListings: Int?
    public var cachedListingEntries: Int?
    public var nodes: Int?
    /// Calls waiting for Box's rate limits (`Pacer`), by limit; nil or empty when none wait.
    public var pacing: [PacingWait]?

    /// Pinned items (`boxfs pin`): how many, and how much of their files is on this machine.
    public struct Pinned: Codable, Sendable, Equatable {
        public var pins: Int
        public var files: Int
        public var filesDone: Int
        public var bytes: Int64
        public var bytesDone: Int64
        /// The file being fetched now (below the mount's root).
        public var fetching: String?
        /// The last failure of a pin's walk or fetch, one line.
        public var error: String?
    }

    /// Nil when nothing is pinned.
    public var pinned: Pinned?

    /// Files whose folder was deleted on Box before they could go up, kept in the recovery place (`RecoveryPlace`).
    public struct Recovered: Codable, Sendable, Equatable {
        /// The recovery place: `<cache_dir>/<account>/recovered/<mounted folder id>`.
        public var directory: String
        /// The files kept there, as paths below it (their paths below the mount).
        public var files: [String]
    }

    /// Nil when none is kept.
    public var recovered: Recovered?

    /// Fills the event stream fields from `state`.
    mutating func describe(_ state: EventStreamState) {
        events = state.phase.rawValue
        eventsSince = state.since
        eventsPosition = state.position
        eventsError = state.lastError
    }

    public static func decode(_ data: Data) throws -> StatusReport {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(StatusReport.self, from: data)
    }

    public func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(self)) ?? Data("{}".utf8)
    }
}

extension FileSystem {
    public func statusReport() async -> StatusReport {
        let offline = client.connectivity.offline
        guard let writeBack else {
            var report = StatusReport(
                readOnly: true, pending: 0, uploading: 0, uploads: [], recentErrors: [], offlineSince: offline?.since,
                offlineReason: offline?.reason, log: options.logDestination)
            report.describe(eventStreamState)
            describeTree(&report)
            describePacing(&report)
            describePins(&report)
            return report
        }
        let status = await writeBack.uploader.status()
        let names = await uploadStatusNames(status.entries.map { ($0.id, $0.target) })
        let uploads = status.entries.map { entry in
            // Before its first attempt the uploader has not measured the file: the local size is it.
            let size = entry.bytesTotal > 0 ? entry.bytesTotal : locals.withLock { $0.file(entryID: entry.id)?.item.size } ?? 0
            return StatusReport.Upload(
                name: names[entry.id] ?? entry.target.name, state: entry.state, bytesSent: entry.bytesSent, bytesTotal: size,
                attempts: entry.attempts, lastError: entry.lastError, nextAttempt: entry.nextAttempt)
        }
        let errors = status.recentErrors.map {
            StatusReport.ErrorLine(date: $0.date, name: $0.name, message: $0.failure.summary)
        }
        var report = StatusReport(
            readOnly: false, pending: status.pendingCount, uploading: status.runningCount, uploads: uploads,
            recentErrors: errors, offlineSince: offline?.since, offlineReason: offline?.reason,
            log: options.logDestination)
        report.describe(eventStreamState)
        describeTree(&report)
        describePacing(&report)
        describePins(&report)
        await describeRecovered(&report, writeBack.recovery)
        return report
    }

    /// The files kept in the recovery place, read off Swift's cooperative pool (a walk of a folder on disk).
    private func describeRecovered(_ report: inout StatusReport, _ recovery: RecoveryPlace?) async {
        guard let recovery else { return }
        let files = await Syscall.offThePool { recovery.files() }
        guard !files.isEmpty else { return }
        report.recovered = StatusReport.Recovered(directory: recovery.directory.path, files: files)
    }

    private func describeTree(_ report: inout StatusReport) {
        (report.cachedListings, report.cachedListingEntries, report.nodes) = tree.withLock { tree in
            (tree.listings.count, tree.listings.entryCount, tree.nodes.count)
        }
    }
}
