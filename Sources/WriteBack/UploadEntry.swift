import BoxAPI
import Foundation

/// One dirty local file as the journal keeps it: what to send where, and how far a chunked upload got.
public struct UploadEntry: Sendable, Equatable {
    /// Journal row id; stable for the life of the entry.
    public let id: Int64
    /// The complete local copy that holds the content to upload.
    public var stagingPath: String
    public var target: UploadTarget
    /// The file's mtime, sent as `content_modified_at`.
    public var contentModifiedAt: Date?
    /// Bumped each time the file is opened for writing again: an upload of an older generation
    /// does not finish the entry.
    public var generation: Int64
    /// A chunked upload session in progress, for the content of `sessionGeneration` and
    /// `sessionFileSize` bytes; resumed after a restart while it is alive.
    public var session: UploadSession?
    public var sessionGeneration: Int64?
    public var sessionFileSize: Int64?
    /// Parts of `session` Box has acknowledged.
    public var parts: [UploadPart]
    /// Failed upload attempts so far, and the last failure.
    public var attempts: Int
    public var lastError: String?
    public var createdAt: Date

    public init(
        id: Int64, stagingPath: String, target: UploadTarget, contentModifiedAt: Date?, generation: Int64 = 1,
        session: UploadSession? = nil, sessionGeneration: Int64? = nil, sessionFileSize: Int64? = nil,
        parts: [UploadPart] = [], attempts: Int = 0, lastError: String? = nil, createdAt: Date = Date()
    ) {
        self.id = id
        self.stagingPath = stagingPath
        self.target = target
        self.contentModifiedAt = contentModifiedAt
        self.generation = generation
        self.session = session
        self.sessionGeneration = sessionGeneration
        self.sessionFileSize = sessionFileSize
        self.parts = parts
        self.attempts = attempts
        self.lastError = lastError
        self.createdAt = createdAt
    }
}

/// The one error type of this module.
public struct WriteBackError: Error, Sendable, CustomStringConvertible {
    public var message: String
    /// The journal's disk is full (SQLite's SQLITE_FULL): the change has no room on this machine.
    public var diskFull: Bool

    public init(_ message: String, diskFull: Bool = false) {
        self.message = message
        self.diskFull = diskFull
    }

    public var description: String { "write-back: \(message)" }
}
