import CurlHTTP
import Foundation
import Synchronization

extension BoxClient {
    /// The content of a file, or of the byte range `range` of it.
    ///
    /// `GET /2.0/files/{id}/content` (authorized, not following redirects) answers 302 with a
    /// short-lived pre-signed `Location` (dl.boxcloud.com at Box); that URL is fetched with the same
    /// `Range` but without `Authorization`, `As-User` or any other extra header. A 202 with
    /// `Retry-After` (file not ready) is waited for, within the retry policy. A range that starts at
    /// or beyond the end of the file gives empty data (416). If the server ignores `Range` and sends
    /// the whole file, only the requested bytes are returned.
    ///
    /// `version`, a file version id (`BoxFileVersion.id`, `BoxItem.fileVersionID`), asks for that version's
    /// content (`?version=`) instead of the current one.
    public func download(fileID: String, range: Range<Int64>?, version: String = "") async throws -> Data {
        if let range, range.isEmpty { return Data() }
        let answer = try await fetchContent(
            fileID: fileID, version: version, rangeHeaders: Self.rangeHeaders(range), destination: .memory,
            locations: nil, mayRenewLocation: true)
        return Self.bytes(of: answer, range: range)
    }

    /// Streams the bytes `range` of a file into `sink` as they arrive, the same way as
    /// `download(fileID:range:)`; returns how many bytes of the range the final answer delivered
    /// (fewer than asked only at the end of the file, 0 for a range beyond it).
    ///
    /// Why: a reader waiting for the first megabyte of an 8 MiB range gets it after 1/8 of the
    /// transfer instead of at its end, and the bytes never sit in a second buffer.
    ///
    /// With `locations`, the pre-signed location is remembered for the file and `version` (the
    /// version the caller expects), so the next range of that file is one request instead of two.
    public func download(
        fileID: String, range: Range<Int64>, into sink: any DownloadSink,
        locations: DownloadLocations? = nil, version: String = ""
    ) async throws -> Int64 {
        guard !range.isEmpty else { return 0 }
        let adapter = RangeBodyAdapter(range: range, sink: sink)
        let answer = try await fetchContent(
            fileID: fileID, version: version, rangeHeaders: Self.rangeHeaders(range), destination: .sink(adapter),
            locations: locations.map { ($0, DownloadLocations.key(fileID: fileID, version: version)) },
            mayRenewLocation: true)
        return answer.status == 416 ? 0 : adapter.delivered
    }

    /// Asks the API where the file's content can be downloaded and remembers that location in
    /// `locations` for `version`, without fetching any content: the file's first range is then one
    /// request instead of two. For a caller that expects the file to be read soon.
    public func prepareDownload(fileID: String, version: String, locations: DownloadLocations) async throws {
        let key = DownloadLocations.key(fileID: fileID, version: version)
        // Known, or being asked for by a read or another preparation: nothing to do.
        guard locations.claimAhead(key) else { return }
        var learnt: String?
        defer { locations.settle(key, with: learnt, ahead: true) }
        // A one-byte range: should the API answer with content instead of a redirect, little moves.
        (learnt, _) = try await contentLocation(
            fileID: fileID, version: version, rangeHeaders: [("Range", "bytes=0-0")], destination: .memory)
    }

    private static func rangeHeaders(_ range: Range<Int64>?) -> [(String, String)] {
        guard let range else { return [] }
        return [("Range", "bytes=\(range.lowerBound)-\(range.upperBound - 1)")]
    }

    /// Step 1 (unless a remembered location skips it), then step 2. A pre-signed location is
    /// short-lived: if it has expired by the time it is fetched (401/403/404/410 there), the API is
    /// asked for a fresh one, once.
    private func fetchContent(
        fileID: String, version: String = "", rangeHeaders: [(String, String)], destination: HTTPResponseDestination,
        locations: (cache: DownloadLocations, key: String)?, mayRenewLocation: Bool
    ) async throws -> HTTPResponse {
        let location: String
        if let locations, case .known(let remembered) = await locations.cache.lookUp(locations.key) {
            location = remembered
        } else {
            // Asking (with `locations`, as the one caller that does for this key: see `lookUp`).
            var learnt: String?
            defer { if let locations { locations.cache.settle(locations.key, with: learnt) } }
            let (fresh, answer) = try await contentLocation(
                fileID: fileID, version: version, rangeHeaders: rangeHeaders, destination: destination)
            guard let fresh else { return answer }
            learnt = fresh
            location = fresh
        }
        var fetch = BoxRequest.get(location)
        fetch.isAuthorized = false
        fetch.headers = rangeHeaders
        fetch.acceptedStatuses = [200, 206, 416]
        fetch.retriesWhileAccepted = true
        fetch.responseBody = destination
        do {
            return try await execute(fetch)
        } catch let error as BoxAPIError where mayRenewLocation && [401, 403, 404, 410].contains(error.status) {
            logger.debug("download location refused (\(error.status)); asking for a new one")
            if let locations { locations.cache.forget(locations.key) }
            return try await fetchContent(
                fileID: fileID, version: version, rangeHeaders: rangeHeaders, destination: destination, locations: locations,
                mayRenewLocation: false)
        }
    }

    /// Step 1: the authorized API call. Returns the resolved redirect target, or nil with the
    /// answer when the API served the content itself.
    /// `version`, when it is a Box file version id (digits), is asked for by id: the bytes are then that
    /// version's even when Box holds a newer one, as the caller keys them by it.
    private func contentLocation(
        fileID: String, version: String = "", rangeHeaders: [(String, String)], destination: HTTPResponseDestination
    ) async throws -> (String?, HTTPResponse) {
        let pinned = !version.isEmpty && version.allSatisfy(\.isASCII) && version.allSatisfy(\.isNumber)
        var api = BoxRequest.get(apiURL("files", fileID, "content", query: pinned ? [("version", version)] : []))
        api.headers = rangeHeaders
        api.acceptedStatuses = [200, 206, 302, 303, 307, 416]
        api.retriesWhileAccepted = true
        api.responseBody = destination
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
