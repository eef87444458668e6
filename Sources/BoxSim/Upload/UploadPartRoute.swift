import Foundation
import HTTPTypes
import Hummingbird

/// `PUT /api/2.0/files/upload_sessions/{id}`: one part, with `Content-Range: bytes lo-hi/total` and
/// `Digest: sha=<base64 SHA-1>` (any case). The body streams to disk, hashed on the way.
/// Parts may come concurrently and in any order; a part is immutable once stored.
struct UploadPartRoute: Sendable {
    let store: Store

    func register(on group: RouterGroup<BoxContext>) {
        group.put("files/upload_sessions/:session") { request, context in
            let session = try await UploadSessionRoutes.session(context, store: store)
            let range = try Self.contentRange(request, session: session)
            let expectedSHA1 = try Self.digest(request)
            let writer = try BlobWriter(store: store.blobs)
            let sha1: String
            do {
                for try await buffer in request.body {
                    guard writer.size + Int64(buffer.readableBytes) <= range.size else {
                        throw BoxError.badRequest("The body is longer than its Content-Range")
                    }
                    try buffer.withUnsafeReadableBytes { try writer.append($0) }
                }
                guard writer.size == range.size else { throw BoxError.badRequest("The body is shorter than its Content-Range") }
                sha1 = writer.finish()
                guard sha1 == expectedSHA1 else {
                    throw BoxError.badRequest("The digest of the part did not match what we received", code: "bad_digest")
                }
            } catch {
                writer.discard()
                throw error
            }
            do {
                let part = try await store.addPart(sessionID: session.id, offset: range.lower, sha1: sha1, writer: writer)
                return jsonResponse(.object([("part", UploadSessionRoutes.partJSON(part))]))
            } catch is PartOverlap {
                throw BoxError(status: .conflict, code: "range_overlaps_existing_part",
                               message: "Part overlaps with previously uploaded part")
            }
        }
    }


    /// Parses and checks `Content-Range` against the session: 400 if absent or malformed, 416 if the range
    /// does not fit the session's file size and part size.
    static func contentRange(_ request: Request, session: UploadSessionRecord) throws -> PartRange {
        try PartRange.parse(request.headers[.contentRange], fileSize: session.fileSize, partSize: session.partSize)
    }

    static let digestHeader = HTTPField.Name("digest")!

    /// The SHA-1 (hex) named by `Digest: sha=<base64>` (the `sha` label in any case); 400 if missing or malformed.
    static func digest(_ request: Request) throws -> String {
        guard let header = request.headers[digestHeader] else {
            throw BoxError.invalidParameter("digest", "'digest' is required")
        }
        for item in header.split(separator: ",") {
            let pair = item.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, pair[0].lowercased() == "sha" || pair[0].lowercased() == "sha-1" else { continue }
            guard let bytes = Data(base64Encoded: pair[1]), bytes.count == 20 else { break }
            return bytes.map { String(format: "%02x", $0) }.joined()
        }
        throw BoxError.invalidParameter("digest", "Invalid value '\(header)'. Expected sha=<base64 SHA-1>")
    }
}
