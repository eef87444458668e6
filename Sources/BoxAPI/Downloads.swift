import CurlHTTP
import Foundation

extension BoxClient {
    /// The content of a file, or of the byte range `range` of it.
    ///
    /// `GET /2.0/files/{id}/content` (authorized, not following redirects) answers 302 with a
    /// short-lived pre-signed `Location` (dl.boxcloud.com at Box); that URL is fetched with the same
    /// `Range` but without `Authorization`, `As-User` or any other extra header. A 202 with
    /// `Retry-After` (file not ready) is waited for, within the retry policy. A range that starts at
    /// or beyond the end of the file gives empty data (416). If the server ignores `Range` and sends
    /// the whole file, only the requested bytes are returned.
    public func download(fileID: String, range: Range<Int64>?) async throws -> Data {
        if let range, range.isEmpty { return Data() }
        var rangeHeaders: [(String, String)] = []
        if let range { rangeHeaders.append(("Range", "bytes=\(range.lowerBound)-\(range.upperBound - 1)")) }

        return try await fetchContent(
            fileID: fileID, range: range, rangeHeaders: rangeHeaders, mayRenewLocation: true)
    }

    /// Step 1, then step 2. A pre-signed location is short-lived: if it has expired by the time it
    /// is fetched (401/403/404/410 there), the API is asked for a fresh one, once.
    private func fetchContent(
        fileID: String, range: Range<Int64>?, rangeHeaders: [(String, String)], mayRenewLocation: Bool
    ) async throws -> Data {
        let (location, answer) = try await contentLocation(fileID: fileID, rangeHeaders: rangeHeaders)
        guard let location else { return Self.bytes(of: answer, range: range) }
        var fetch = BoxRequest.get(location)
        fetch.isAuthorized = false
        fetch.headers = rangeHeaders
        fetch.acceptedStatuses = [200, 206, 416]
        fetch.retriesWhileAccepted = true
        do {
            return Self.bytes(of: try await execute(fetch), range: range)
        } catch let error as BoxAPIError where mayRenewLocation && [401, 403, 404, 410].contains(error.status) {
            logger.debug("download location refused (\(error.status)); asking for a new one")
            return try await fetchContent(
                fileID: fileID, range: range, rangeHeaders: rangeHeaders, mayRenewLocation: false)
        }
    }

    /// Step 1: the authorized API call. Returns the resolved redirect target, or nil with the
    /// answer when the API served the content itself.
    private func contentLocation(
        fileID: String, rangeHeaders: [(String, String)]
    ) async throws -> (String?, HTTPResponse) {
        var api = BoxRequest.get(apiURL("files", fileID, "content"))
        api.headers = rangeHeaders
        api.acceptedStatuses = [200, 206, 302, 303, 307, 416]
        api.retriesWhileAccepted = true
        let answer = try await execute(api)
        guard [302, 303, 307].contains(answer.status) else { return (nil, answer) }
        guard let location = answer.headers["Location"], !location.isEmpty else {
            throw BoxAPIError(
                kind: .decoding("redirect without a Location header"), status: answer.status,
                request: api.logDescription)
        }
        return (BoxURL.resolve(location, against: api.url), answer)
    }

    /// The requested bytes of a 200/206/416 answer.
    static func bytes(of response: HTTPResponse, range: Range<Int64>?) -> Data {
        switch response.status {
        case 416:
            return Data()
        case 200:
            guard let range else { return response.body }
            // The server ignored Range and sent everything: cut out what was asked for.
            let start = Int(clamping: range.lowerBound)
            let end = Int(clamping: range.upperBound)
            guard start < response.body.count else { return Data() }
            let body = response.body
            return body.subdata(in: body.startIndex + start..<body.startIndex + min(end, body.count))
        default:
            guard let range else { return response.body }
            let wanted = Int(clamping: range.upperBound - range.lowerBound)
            return response.body.count > wanted ? response.body.prefix(wanted) : response.body
        }
    }
}
