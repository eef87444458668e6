import Foundation
import SystemCalls

/// Receives the OAuth2 redirect on `http://127.0.0.1:PORT/PATH` (RFC 8252 loopback redirect): listens,
/// answers the browser with a short page, and hands back the query of the one request to `path`.
/// Other requests (a browser's `/favicon.ico`) get 404 and do not end the wait.
public final class LoopbackRedirectReceiver: Sendable {
    public let port: UInt16
    public let path: String
    private let socketFD: Int32

    /// Binds 127.0.0.1:`port` (0 picks a free one) now, so the redirect URI is known before the
    /// authorize URL is printed.
    public init(port: UInt16, path: String = "/callback") throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw AuthError(.authorization, "cannot open a socket for the sign-in redirect") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 8) == 0 else {
            Syscall.close(fd)
            throw AuthError(.authorization, "cannot listen on 127.0.0.1:\(port) for the sign-in redirect (in use?)")
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.port = UInt16(bigEndian: actual.sin_port)
        self.path = path
        socketFD = fd
    }

    deinit { Syscall.close(socketFD) }

    public var redirectURI: String { "http://127.0.0.1:\(port)\(path)" }

    /// Waits (up to `timeout` seconds) for the redirect and returns its query parameters. The caller
    /// checks `state`; passing it as `expectedState` only makes the browser's page tell the truth.
    public func waitForRedirect(timeout: Double, expectedState: String? = nil) async throws -> [String: String] {
        let fd = socketFD
        let path = self.path
        return try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result {
                    try Self.serve(fd: fd, path: path, expectedState: expectedState, timeout: timeout)
                })
            }
        }
    }

    private static func serve(fd: Int32, path: String, expectedState: String?, timeout: Double) throws -> [String: String] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { throw AuthError(.authorization, "no sign-in redirect arrived within \(Int(timeout)) s") }
            let wait = Int32(min(remaining, 1) * 1000)
            guard (try? Syscall.waitReadable(fd, milliseconds: wait, path: "the sign-in redirect's socket")) == true else { continue }
            let client = accept(fd, nil, nil)
            guard client >= 0 else { continue }
            defer { Syscall.close(client) }
            guard let target = readRequestTarget(client) else { continue }
            let parts = target.split(separator: "?", maxSplits: 1)
            guard parts.first.map(String.init) == path else {
                reply(client, status: "404 Not Found", body: "Not found")
                continue
            }
            let query = parts.count > 1 ? FormEncoding.decode(String(parts[1])) : [:]
            let stateMatches = expectedState == nil || query["state"] == expectedState
            let ok = query["code"] != nil && stateMatches
            let problem = query["error"] ?? (stateMatches ? "no authorization code" : "state mismatch")
            reply(client, status: ok ? "200 OK" : "400 Bad Request",
                  body: ok ? "boxfs is signed in to Box. You can close this window."
                           : "Sign-in failed: \(safe(problem)). See the terminal.")
            return query
        }
    }

    /// Only letters, digits, `_` and spaces of a value echoed into the page.
    private static func safe(_ text: String) -> String {
        String(text.filter { $0.isLetter || $0.isNumber || $0 == "_" || $0 == " " }.prefix(100))
    }

    /// The request target of `GET <target> HTTP/1.1`, reading at most 16 KiB of headers.
    private static func readRequestTarget(_ client: Int32) -> String? {
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 16384 {
            let count = (try? Syscall.readSome(client, into: &buffer, path: "the sign-in redirect's connection")) ?? 0
            guard count > 0 else { break }
            bytes += buffer[0..<count]
            if bytes.firstIndex(of: UInt8(ascii: "\n")) != nil { break }
        }
        let line = String(decoding: bytes.prefix { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        let words = line.split(separator: " ")
        guard words.count >= 2, words[0] == "GET" else { return nil }
        return String(words[1])
    }

    private static func reply(_ client: Int32, status: String, body: String) {
        let html = "<!doctype html><html><body><p>\(body)</p></body></html>"
        let text = "HTTP/1.1 \(status)\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: \(html.utf8.count)\r\n"
            + "Connection: close\r\nCache-Control: no-store\r\n\r\n" + html
        try? Syscall.writeAll(client, Data(text.utf8), path: "the sign-in redirect's connection")
    }
}
