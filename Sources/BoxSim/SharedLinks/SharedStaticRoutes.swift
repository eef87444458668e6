import Hummingbird

/// `GET /shared/static/<token>.<ext>`: a file link's `download_url` (app.box.com's direct download), served without
/// a token as Box serves it to anyone holding an open link: 302 to a signed `/dl/` URL of the current version,
/// counting `download_count`. Links that need a login or a password (`company`, `collaborators`, a password:
/// Box shows its web pages there), links without `can_download`, folder links and unknown or expired links are
/// answered 404 `not_found` / 403 as `GET /2.0/shared_items` answers.
struct SharedStaticRoutes: Sendable {
    let store: Store
    let signer: DownloadTokenSigner

    func register(on router: Router<BoxContext>) {
        router.get("shared/static/:name") { _, context in
            let name = context.parameters.get("name") ?? ""
            let token = String(name.prefix { $0 != "." })
            guard let link = try await store.sharedLink(token: token, vanity: false),
                  let file = try await store.item(id: link.itemID), !file.isFolder, file.itemStatus == "active",
                  let versionID = file.versionID
            else { throw BoxError.notFound() }
            context.state.userID = file.ownerID
            guard link.access == "open", link.password == nil, link.canDownload else {
                throw BoxError(status: .forbidden, code: "access_denied_insufficient_permissions",
                               message: "Access denied - insufficient permission")
            }
            try await store.countSharedDownload(itemID: link.itemID)
            let signed = signer.sign(.init(fileID: file.id!, versionID: versionID,
                                           expiresAt: Timestamp.now() + DownloadTokenSigner.lifetime))
            var headers = HTTPFields()
            headers[.location] = RequestBase.url(.dl) + "/dl/" + signed
            return Response(status: .found, headers: headers)
        }
    }
}
