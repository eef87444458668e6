/// One version of one Box file, as the read path needs it.
///
/// `version` keys every cached byte: Box's file_version id (else the SHA-1), so bytes of an older
/// version can never be served for a newer one.
public struct RemoteFile: Sendable, Hashable {
    public let id: String
    public let version: String
    public let size: Int64
    /// Box's SHA-1 of the whole content (lower-case hex), checked when a handle reads the file whole.
    public let sha1: String?

    public init(id: String, version: String, size: Int64, sha1: String?) {
        self.id = id
        self.version = version
        self.size = size
        self.sha1 = sha1
    }
}

/// Fetches bytes of a file from Box, the whole range at once: `BoxClient.download(fileID:range:)`,
/// anything in tests.
public typealias RangeFetcher = @Sendable (_ fileID: String, _ range: Range<Int64>) async throws -> Data

/// Streams bytes of a file from Box into a sink as they arrive and returns how many of the range it
/// delivered: `BoxClient.download(fileID:range:into:locations:version:)` in the mount.
public typealias RangeStreamer = @Sendable (_ file: RemoteFile, _ range: Range<Int64>, _ sink: any DownloadSink)
    async throws -> Int64

import BoxAPI
import Foundation
