import BoxAPI
import Foundation

/// What the uploader reports to the filesystem core as it works.
public enum UploaderEvent: Sendable, Equatable {
    /// Box holds the entry's content as `item`. `isFinal`: the entry is complete and left the journal;
    /// otherwise newer local content follows as the next version of `item`. `target` is the entry's
    /// target after this upload: where it went when final (a conflicted copy's name after a
    /// conflict), else the next version of `item`.
    case uploaded(entryID: Int64, item: BoxItem, target: UploadTarget, stagingPath: String, isFinal: Bool)
    /// `original` changed on Box (or its name was taken): the local content goes up as `copyName`.
    case conflict(entryID: Int64, original: UploadTarget, copyName: String)
    /// The Box file `original` adds a version to is gone (deleted on Box): the local content goes up as a new file
    /// at its name.
    case recreated(entryID: Int64, original: UploadTarget)
    /// An upload landed as `item` at a target the entry no longer has (renamed over another file
    /// while it ran): `item` should be deleted from Box; the content goes to the new target next.
    case stray(entryID: Int64, item: BoxItem)
    /// Box no longer has the entry's folder: its content is kept at `path` in the recovery place (`mountPath`: the
    /// file's path below the mount). `isFinal`: the entry left the journal (else newer content follows).
    case keptAside(entryID: Int64, path: String, mountPath: String, isFinal: Bool)
    /// An attempt failed; the entry stays journaled and will be retried.
    case failed(entryID: Int64, failure: UploadFailure)
}

/// A snapshot for `boxfs status`.
public struct UploaderStatus: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var id: Int64
        public var target: UploadTarget
        /// `writing`, `waiting`, `queued`, `uploading`, `retrying`, `parked`.
        public var state: String
        public var bytesSent: Int64
        public var bytesTotal: Int64
        public var attempts: Int
        public var lastError: String?
        /// When a parked or backing-off upload is tried next (`boxfs retry` tries it now).
        public var nextAttempt: Date?
    }

    public struct ErrorRecord: Sendable, Equatable {
        public var date: Date
        public var entryID: Int64
        public var name: String
        public var failure: UploadFailure
    }

    public var entries: [Entry]
    public var recentErrors: [ErrorRecord]

    public var pendingCount: Int { entries.count }
    public var runningCount: Int { entries.filter { $0.state == "uploading" }.count }
}
