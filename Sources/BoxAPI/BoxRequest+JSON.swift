import CurlHTTP
import Foundation

extension BoxRequest {
    /// A request with a JSON body (`Content-Type: application/json`). Keys are sorted so that the
    /// bytes on the wire are stable (tests and logs compare them).
    static func json(_ method: HTTPMethod, _ url: String, _ object: [String: Any]) -> BoxRequest {
        var request = BoxRequest(method: method, url: url)
        // Only strings, numbers, booleans, arrays and dictionaries are put in here, which
        // JSONSerialization always accepts.
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        request.body = .data(data)
        request.headers.append(("Content-Type", "application/json"))
        return request
    }

    /// Adds `If-Match: etag` when an etag is given: Box then answers 412 if the item changed.
    /// A PUT carrying `If-Match` is no longer safe to repeat blindly: if the first attempt was
    /// applied, the etag moved and the repeat gets a spurious 412.
    mutating func ifMatch(_ etag: String?) {
        guard let etag else { return }
        headers.append(("If-Match", etag))
        isIdempotent = false
    }
}

extension BoxAPIError {
    /// 409 `item_name_in_use`: an item of that name (any case) already exists; see `conflicts`.
    public var isNameInUse: Bool { status == 409 && code == "item_name_in_use" }

    /// The account is out of space (403 `storage_limit_exceeded`). Retrying will not help until
    /// space is freed.
    public var isStorageLimitExceeded: Bool { code == "storage_limit_exceeded" }

    /// The file is larger than the account may upload (403 `file_size_limit_exceeded`, or 413).
    public var isFileSizeLimitExceeded: Bool { code == "file_size_limit_exceeded" || status == 413 }

    /// 412: the item changed since the etag sent in `If-Match`.
    public var isPreconditionFailed: Bool { status == 412 }
}
