import CurlHTTP
import Foundation

extension BoxClient {
    /// How a commit keeps asking while Box answers 202 ("parts not processed yet"): after the answer's
    /// `Retry-After` (else 1 s), for up to 600 s.
    static let commitPatience = RetryPolicy(
        maxAttempts: .max, baseDelay: 1, maxDelay: 1, maxTotalWait: 600, jitter: 0)

    /// `POST` the session's commit URL: the parts (all of them, in order) become the file.
    ///
    /// `Digest: sha=<base64 SHA-1 of the whole file>` lets Box check the assembled bytes; `ifMatch`
    /// guards a new version against a change on Box meanwhile (412). Box answers 202 with
    /// `Retry-After` while it is still processing parts: that answer (and only that one, plus a
    /// 400 `parts_mismatch` right after the last part, which rclone found to be transient) is
    /// asked again after the wait, within `commitPatience`. A commit is otherwise not
    /// repeated blindly: after a lost answer it may have happened.
    public func commitUploadSession(
        _ session: UploadSession, parts: [UploadPart], fileSHA1: FileDigest.Digest, ifMatch: String? = nil,
        contentModifiedAt: Date? = nil
    ) async throws -> BoxItem {
        var body: [String: Any] = [
            "parts": parts.sorted { $0.offset < $1.offset }.map { part -> [String: Any] in
                var entry: [String: Any] = ["part_id": part.partID, "offset": part.offset, "size": part.size]
                if let sha1 = part.sha1 { entry["sha1"] = sha1 }
                return entry
            }
        ]
        if let contentModifiedAt { body["attributes"] = ["content_modified_at": BoxDate.format(contentModifiedAt)] }
        let separator = session.commitURL.contains("?") ? "&" : "?"
        var request = BoxRequest.json(
            .post, session.commitURL + separator + "fields=" + BoxURL.encode(BoxItem.fields), body)
        request.headers.append(("Digest", "sha=\(fileSHA1.base64)"))
        request.ifMatch(ifMatch)
        request.acceptedStatuses = [200, 201, 202]

        var waited = 0.0
        var attempt = 0
        var mismatchRetries = 0
        while true {
            attempt += 1
            let notReady: RetryPolicy.Failure
            do {
                let response = try await execute(request)
                if response.status != 202 {
                    let files = try BoxJSON.decode(
                        FilesDTO.self, from: response.body, status: response.status, request: request.logDescription)
                    guard let item = files.entries.first?.item else {
                        throw BoxAPIError(
                            kind: .decoding("commit answer has no entries"), status: response.status,
                            request: request.logDescription)
                    }
                    return item
                }
                notReady = .status(202, retryAfter: RetryAfter.seconds(of: response))
            } catch let error as BoxAPIError where error.status == 400 && error.code == "parts_mismatch"
                && mismatchRetries < 3
            {
                mismatchRetries += 1
                notReady = .status(202, retryAfter: nil)
            }
            guard
                let wait = Self.commitPatience.delay(
                    after: notReady, attempt: attempt, isIdempotent: true, waitedSoFar: waited, random: 0)
            else {
                throw BoxAPIError(
                    kind: .server, status: 202, code: "commit_not_ready",
                    message: "parts still not processed after \(Int(waited)) s", retryAfter: 1,
                    request: request.logDescription)
            }
            logger.debug("commit not ready; asking again in \(wait) s", metadata: ["session": "\(session.id)"])
            try await Task.sleep(nanoseconds: UInt64(wait * 1_000_000_000))
            waited += wait
        }
    }
}
