import Foundation
import HTTPTypes
import Hummingbird

/// Receives Box's multipart upload body: an `attributes` JSON part, then the file part (named `file` or
/// `contents`, or any part with a filename). The file streams into a `BlobWriter` (SHA-1 computed while
/// writing); the request body is never held whole in memory.
struct MultipartUpload {
    /// Box's limit for a direct (non-chunked) upload.
    static let maxDirectUploadSize: Int64 = 50 * 1024 * 1024
    static let maxAttributesBytes = 1 << 20

    var attributes: [String: Any]
    let writer: BlobWriter
    var sha1: String
    var size: Int64 { writer.size }

    private enum Current { case none, attributes, file, ignored }

    /// Reads the whole body. `validate` runs on the attributes as soon as their part ends, before any file byte
    /// is stored, so conflicts and bad names are answered early. `userLimit` is the user's `max_upload_size`.
    static func receive(_ request: Request, store: Store, userLimit: Int64,
                        validate: ([String: Any]) async throws -> Void) async throws -> MultipartUpload {
        guard let contentType = request.headers[.contentType], var parser = MultipartParser(contentType: contentType)
        else { throw BoxError.badRequest("Expected a multipart/form-data body") }
        var attributesBytes: [UInt8] = []
        var attributes: [String: Any]?
        var writer: BlobWriter?
        var current = Current.none
        do {
            for try await buffer in request.body {
                let events: [MultipartParser.Event]
                do { events = try parser.feed(buffer.readableBytesView) } catch let error as MultipartParser.Malformed {
                    throw BoxError.badRequest("Malformed multipart body: \(error.reason)")
                }
                for event in events {
                    switch event {
                    case .part(let headers):
                        let parameters = MultipartParser.dispositionParameters(headers["content-disposition"])
                        let name = parameters["name"]
                        if name == "attributes" {
                            if writer != nil { throw metadataAfterFileContents() }
                            current = .attributes
                        } else if name == "file" || name == "contents" || parameters["filename"] != nil {
                            guard attributes != nil else { throw metadataAfterFileContents() }
                            if writer != nil { current = .ignored; continue }
                            writer = try BlobWriter(store: store.blobs)
                            current = .file
                        } else {
                            current = .ignored
                        }
                    case .body(let bytes):
                        switch current {
                        case .attributes:
                            attributesBytes += bytes
                            if attributesBytes.count > maxAttributesBytes { throw BoxError.badRequest("attributes too large") }
                        case .file:
                            guard let writer else { break }
                            let newSize = writer.size + Int64(bytes.count)
                            if newSize > userLimit { throw WriteErrors.fileSizeLimitExceeded() }
                            if newSize > maxDirectUploadSize { throw tooLarge() }
                            try bytes.withUnsafeBytes { try writer.append($0) }
                        case .none, .ignored:
                            break
                        }
                    case .partEnd:
                        if current == .attributes {
                            guard let object = try? JSONSerialization.jsonObject(with: Data(attributesBytes))
                                    as? [String: Any]
                            else { throw BoxError.badRequest("Could not parse the attributes JSON") }
                            attributes = object
                            try await validate(object)
                        }
                        current = .none
                    case .end:
                        break
                    }
                }
            }
            guard parser.isComplete else { throw BoxError.badRequest("Malformed multipart body: no closing boundary") }
            guard let attributes else { throw BoxError.badRequest("The attributes part is missing") }
            guard let writer else { throw BoxError.badRequest("The file part is missing") }
            return MultipartUpload(attributes: attributes, writer: writer, sha1: writer.finish())
        } catch {
            writer?.discard()
            throw error
        }
    }

    /// `Content-MD5` carries the SHA-1 (hex) of the file on Box; a mismatch is 400 `bad_digest`.
    func checkContentMD5(_ request: Request) throws {
        guard let expected = request.headers[HTTPField.Name("content-md5")!]?.trimmingCharacters(in: .whitespaces) else { return }
        if expected.lowercased() != sha1 {
            writer.discard()
            throw BoxError.badRequest("The specified content-md5 did not match what we received", code: "bad_digest")
        }
    }

    /// Moves the received file into the blob store and describes it.
    func install() throws -> FileContent {
        let packed = try writer.install(sha1: sha1)
        return FileContent(sha1: sha1, size: size, packed: packed,
                           contentCreatedAt: (attributes["content_created_at"] as? String).flatMap(Timestamp.parse),
                           contentModifiedAt: (attributes["content_modified_at"] as? String).flatMap(Timestamp.parse))
    }

    static func metadataAfterFileContents() -> BoxError {
        BoxError.badRequest("Metadata must come before file contents in a multipart upload",
                            code: "metadata_after_file_contents")
    }

    static func tooLarge() -> BoxError {
        BoxError(status: .contentTooLarge, code: "request_entity_too_large",
                 message: "Request Entity Too Large: direct uploads are limited to 50 MB; use an upload session")
    }
}
