import CCurl

/// `curl_global_init` is not thread-safe and must run once before any thread uses curl. A static `let`
/// is initialized exactly once, under the runtime's once-lock, the first time any client is created.
enum CurlGlobal {
    private static let initResult: Int = Int(curl_global_init(Int(CURL_GLOBAL_ALL)).rawValue)

    static func ensureInitialized() throws(HTTPError) {
        guard initResult == Int(CURLE_OK.rawValue) else {
            throw HTTPError(kind: .transport, message: "curl_global_init failed", curlCode: initResult)
        }
    }
}
