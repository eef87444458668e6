import CurlHTTP
import Foundation
import SystemCalls

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension BoxClient {
    /// `OPTIONS /2.0/files/content`: would an upload of `size` bytes named `name` into `parentID`
    /// pass (permissions, name rules and collisions, quota, size limits)? Throws the refusal:
    /// 409 `item_name_in_use` (with `conflicts`), 403 `storage_limit_exceeded`, ...
    public func preflightUpload(name: String, parentID: String, size: Int64) async throws -> UploadPreflight {
        let body: [String: Any] = ["name": name, "size": size, "parent": ["id": parentID]]
        let dto = try await executeJSON(.json(.options, apiURL("files", "content"), body), as: UploadURLDTO.self)
        return UploadPreflight(uploadURL: dto.uploadURL, uploadToken: dto.uploadToken)
    }

    /// `OPTIONS /2.0/files/{id}/content`: the same check for a new version (named in Box's guide,
    /// not in the spec).
    public func preflightVersion(fileID: String, size: Int64, name: String? = nil) async throws -> UploadPreflight {
        var body: [String: Any] = ["size": size]
        if let name { body["name"] = name }
        let request = BoxRequest.json(.options, apiURL("files", fileID, "content"), body)
        let dto = try await executeJSON(request, as: UploadURLDTO.self)
        return UploadPreflight(uploadURL: dto.uploadURL, uploadToken: dto.uploadToken)
    }

    /// `POST <upload>/2.0/files/content`: the file at `path` becomes a new file `name` in `parentID`.
    ///
    /// `Content-MD5` carries the SHA-1 (hex) computed by streaming the file first (pass `sha1` if
    /// already known): Box rejects a body that does not match (400 `bad_digest`), so content that
    /// changed while being sent is never stored. Not retried blindly: after a lost answer the
    /// upload may have been stored; the caller decides (a repeat meets 409 with the stored file).
    public func uploadFile(
        path: String, name: String, parentID: String, contentModifiedAt: Date? = nil, sha1: FileDigest.Digest? = nil
    ) async throws -> BoxItem {
        var attributes: [String: Any] = ["name": name, "parent": ["id": parentID]]
        if let contentModifiedAt { attributes["content_modified_at"] = BoxDate.format(contentModifiedAt) }
        return try await upload(
            url: uploadURL("files", "content"), path: path, name: name, attributes: attributes, sha1: sha1,
            ifMatch: nil)
    }

    /// `POST <upload>/2.0/files/{id}/content`: the file at `path` becomes the new version of `fileID`
    /// (same id, earlier versions kept). With `ifMatch`, 412 if the file changed since that etag.
    /// `newName` renames the file in the same call.
    public func uploadVersion(
        fileID: String, path: String, ifMatch: String?, newName: String? = nil, contentModifiedAt: Date? = nil,
        sha1: FileDigest.Digest? = nil
    ) async throws -> BoxItem {
        var attributes: [String: Any] = [:]
        if let newName { attributes["name"] = newName }
        if let contentModifiedAt { attributes["content_modified_at"] = BoxDate.format(contentModifiedAt) }
        return try await upload(
            url: uploadURL("files", fileID, "content"), path: path, name: newName ?? "file", attributes: attributes,
            sha1: sha1, ifMatch: ifMatch)
    }

    private func upload(
        url: String, path: String, name: String, attributes: [String: Any], sha1: FileDigest.Digest?,
        ifMatch: String?
    ) async throws -> BoxItem {
        let size = try Self.localFileSize(path)
        let digest = try sha1 ?? FileDigest.sha1(path: path, length: size)
        let form = MultipartUpload(attributes: attributes, filePath: path, fileSize: size, fileName: name)
        var request = BoxRequest(method: .post, url: url + "?fields=" + BoxURL.encode(BoxItem.fields))
        request.body = form.body
        request.headers = [("Content-Type", form.contentType), ("Content-MD5", digest.hex)]
        request.ifMatch(ifMatch)
        request.acceptedStatuses = [200, 201]
        let files = try await executeJSON(request, as: FilesDTO.self)
        guard let item = files.entries.first?.item else {
            throw BoxAPIError(
                kind: .decoding("upload answer has no entries"), status: 201, request: request.logDescription)
        }
        return item
    }

    /// `<uploadBase>/2.0/<segments...>`.
    func uploadURL(_ segments: String..., query: [(String, String)] = []) -> String {
        BoxURL.make(endpoints.uploadBase, ["2.0"] + segments, query: query)
    }

    static func localFileSize(_ path: String) throws -> Int64 {
        do throws(SystemCallError) {
            return Int64(try Syscall.status(path).st_size)
        } catch {
            throw BoxAPIError(kind: .transport("cannot stat the local file: " + error.reason, isTransient: false))
        }
    }
}
