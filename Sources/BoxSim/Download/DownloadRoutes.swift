import Foundation
import Hummingbird

/// `GET /dl/<token>`: the download host. No Authorization needed; `Range` answers 206, a bad range 416.
/// The body streams from the blob file in 1 MiB reads (never the whole file in memory).
struct DownloadRoutes: Sendable {
    let store: Store
    let signer: DownloadTokenSigner
    static let chunkLength = 1 << 20

    func register(on router: Router<BoxContext>) {
        let fileIO = FileIO()
        router.get("dl/:token") { request, context in
            guard let token = context.parameters.get("token"),
                  let claims = signer.verify(token, now: Timestamp.now()),
                  let file = try await store.item(id: claims.fileID), file.itemStatus == "active",
                  let version = try await store.version(id: claims.versionID), version.fileID == file.id
            else { throw BoxError.notFound() }
            context.state.userID = file.ownerID
            let path = store.blobs.path(forSHA1: version.sha1)
            var headers = HTTPFields()
            headers[.contentType] = "application/octet-stream"
            headers[.acceptRanges] = "bytes"
            headers[.contentDisposition] = "attachment; filename*=UTF-8''"
                + (file.name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "download")
            switch ByteRange.parse(request.headers[.range], size: version.size) {
            case .unsatisfiable:
                headers[.contentRange] = "bytes */\(version.size)"
                return Response(status: .rangeNotSatisfiable, headers: headers, body: .init())
            case .whole:
                guard version.size > 0 else { return Response(status: .ok, headers: headers, body: .init()) }
                let body = try await fileIO.loadFile(path: path, range: 0...Int(version.size - 1), context: context,
                                                     chunkLength: Self.chunkLength)
                return Response(status: .ok, headers: headers, body: body)
            case .partial(let range):
                headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(version.size)"
                let body = try await fileIO.loadFile(path: path, range: Int(range.lowerBound)...Int(range.upperBound),
                                                     context: context, chunkLength: Self.chunkLength)
                return Response(status: .partialContent, headers: headers, body: body)
            }
        }
    }
}
