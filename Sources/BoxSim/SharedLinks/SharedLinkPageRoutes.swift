import Hummingbird

/// `GET /s/<token>` and `GET /v/<vanity name>`: what a browser gets at a shared link's `url` / `vanity_url` (Box
/// serves its web app there, app.box.com). No token needed. An open link without a password: 200, a page naming the
/// item (`SharedLinkPage.item`) with a link to the file's `download_url` when downloads are allowed, or the names in
/// the folder; a password: 200, a page asking for it; `company` / `collaborators`: 200, a page asking to sign in;
/// an unknown, removed or expired link, or a trashed item: 404 with Box's "removed or unavailable" page.
struct SharedLinkPageRoutes: Sendable {
    let store: Store

    func register(on router: Router<BoxContext>) {
        router.get("s/:token") { _, context in
            try await page(token: context.parameters.get("token") ?? "", vanity: false, context: context)
        }
        router.get("v/:name") { _, context in
            try await page(token: context.parameters.get("name") ?? "", vanity: true, context: context)
        }
    }

    private func page(token: String, vanity: Bool, context: BoxContext) async throws -> Response {
        guard let link = try await store.sharedLink(token: token, vanity: vanity),
              let item = try await store.item(id: link.itemID), item.itemStatus == "active"
        else { return html(SharedLinkPage.unavailable, status: .notFound) }
        context.state.userID = item.ownerID
        guard link.access == "open" else { return html(SharedLinkPage.loginNeeded) }
        guard link.password == nil else { return html(SharedLinkPage.passwordNeeded) }
        var children: [String] = []
        var size = item.size
        if item.isFolder {
            children = try await store.children(of: item.id!, offset: 0, limit: 1000).items.map(\.name)
            size = try await store.folderSize(id: item.id!)
        }
        let downloadURL = link.canDownload
            ? SharedLinkRenderer.downloadURL(link, item: item, base: RequestBase.url(.app)) : nil
        return html(SharedLinkPage.item(name: item.name, isFolder: item.isFolder, size: size, downloadURL: downloadURL,
                                        children: children))
    }

    private func html(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
