import Hummingbird

/// The control API (only with `--control`): test hooks that real Box does not have.
struct ControlRoutes: Sendable {
    let store: Store
    let log: RequestLog

    func register(on router: Router<BoxContext>) {
        let group = router.group("_control")
        group.get("requests") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            let body = "{\"entries\":" + log.readAllAsJSONArray() + "}"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
        }
        group.delete("requests") { _, _ in
            log.clear()
            return Response(status: .noContent)
        }
    }
}
