import Foundation

/// A chunked upload session (`POST /files/upload_sessions`): parts of `partSize` bytes (the last one
/// shorter) are PUT to `uploadPartURL`, then committed. Box chooses `partSize`. A session lives for
/// 7 days; its URLs are absolute and may point to another upload host than the one that created it.
///
/// Every field is public and settable so a journal can keep a session across restarts and resume it.
public struct UploadSession: Sendable, Equatable {
    public var id: String
    public var partSize: Int64
    public var totalParts: Int
    public var partsProcessed: Int
    public var expiresAt: Date?
    public var uploadPartURL: String
    public var commitURL: String
    public var abortURL: String
    public var listPartsURL: String
    public var statusURL: String

    public init(
        id: String, partSize: Int64, totalParts: Int, partsProcessed: Int = 0, expiresAt: Date?,
        uploadPartURL: String, commitURL: String, abortURL: String, listPartsURL: String, statusURL: String
    ) {
        self.id = id
        self.partSize = partSize
        self.totalParts = totalParts
        self.partsProcessed = partsProcessed
        self.expiresAt = expiresAt
        self.uploadPartURL = uploadPartURL
        self.commitURL = commitURL
        self.abortURL = abortURL
        self.listPartsURL = listPartsURL
        self.statusURL = statusURL
    }

    /// The byte range of part `index` (0-based) of a file of `fileSize` bytes.
    public func range(ofPart index: Int, fileSize: Int64) -> Range<Int64> {
        let start = Int64(index) * partSize
        return start..<min(start + partSize, fileSize)
    }
}

/// One uploaded part, as Box reports it and as the commit must list it.
public struct UploadPart: Sendable, Equatable, Hashable {
    public var partID: String
    public var offset: Int64
    public var size: Int64
    /// Hex SHA-1 of the part; Box's part listing may leave it null.
    public var sha1: String?

    public init(partID: String, offset: Int64, size: Int64, sha1: String?) {
        self.partID = partID
        self.offset = offset
        self.size = size
        self.sha1 = sha1
    }
}

/// The answer of a passed upload preflight (`OPTIONS /files/content`).
public struct UploadPreflight: Sendable, Equatable {
    /// Where Box suggests sending the upload (may carry an `upload_session_id` query).
    public var uploadURL: String?
    public var uploadToken: String?

    public init(uploadURL: String?, uploadToken: String?) {
        self.uploadURL = uploadURL
        self.uploadToken = uploadToken
    }
}
