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

/// Fetches bytes of a file from Box: `BoxClient.download` in the mount, anything in tests.
public typealias RangeFetcher = @Sendable (_ fileID: String, _ range: Range<Int64>) async throws -> Data

import Foundation
