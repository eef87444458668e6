import Foundation
import Hummingbird

/// `GET /dl/<token>`: the download host. No Authorization needed; `Range` answers 206 (several ranges:
/// `multipart/byteranges`), a range beyond the end 416. The body goes out from the blob file (or the blob's
/// region of its pack) with sendfile (never the whole file in memory; see `DownloadBodies`).
struct DownloadRoutes: Sendable {
    let store: Store
    let signer: DownloadTokenSigner

    func register(on router: Router<BoxContext>) {
        router.get("dl/:token") { request, context in
            guard let token = context.parameters.get("token"),
                  let claims = signer.verify(token, now: Timestamp.now()),
                  let file = try await store.item(id: claims.fileID), file.itemStatus == "active",
                  let version = try await store.version(id: claims.versionID), version.fileID == file.id
            else { throw BoxError.notFound() }
            context.state.userID = file.ownerID
            let blob = try await store.blobLocation(sha1: version.sha1)
            guard FileManager.default.fileExists(atPath: blob.path) else { throw BoxError.notFound() }
            var headers = HTTPFields()
            headers[.contentType] = "application/octet-stream"
            headers[.acceptRanges] = "bytes"
            headers[.contentDisposition] = "attachment; filename*=UTF-8''"
                + (file.name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "download")
            let size = version.size
            let bodies = DownloadBodies(blob: blob, context: context)
            switch ByteRange.parse(request.headers[.range], size: size) {
            case .unsatisfiable:
                headers[.contentRange] = "bytes */\(size)"
                return Response(status: .rangeNotSatisfiable, headers: headers, body: .init())
            case .whole:
                guard size > 0 else { return Response(status: .ok, headers: headers, body: .init()) }
                return Response(status: .ok, headers: headers, body: bodies.range(0...(size - 1)))
            case .partial(let range):
                headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(size)"
                return Response(status: .partialContent, headers: headers, body: bodies.range(range))
            case .multiple(let ranges):
                let boundary = DownloadBodies.makeBoundary()
                headers[.contentType] = "multipart/byteranges; boundary=\(boundary)"
                let body = bodies.multipart(ranges: ranges, size: size, boundary: boundary)
                return Response(status: .partialContent, headers: headers, body: body)
            }
        }
    }
}
