import BoxAuth
import Foundation
import Synchronization
import XCTest

/// The file store: 0600, atomic replace, and two users of one file never spending a refresh token twice.
final class FileTokenStoreTests: XCTestCase {
    var directory: URL!

    override func setUp() async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("boxauth-store-\(UUID().uuidString)")
    }

    override func tearDown() async throws {
        try? FileManager.default.removeItem(at: directory)
    }

    func testWriteIsPrivateAndReadable() async throws {
        let store = FileTokenStore(path: directory.appendingPathComponent("tokens/a.json").path)
        let empty = try await store.read()
        XCTAssertNil(empty)
        try await store.write(TokenInfo(accessToken: "A", refreshToken: "RA", expiresIn: 60))
        let attributes = try FileManager.default.attributesOfItem(atPath: store.path)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        let read = try await store.read()
        XCTAssertEqual(read?.accessToken, "A")
        XCTAssertEqual(read?.refreshToken, "RA")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("tokens").path)
        XCTAssertEqual(leftovers.sorted(), ["a.json"], "no temp files are left behind")
        try await store.clear()
        let cleared = try await store.read()
        XCTAssertNil(cleared)
    }

    /// A file someone left readable (0644) is replaced by a new 0600 file, not rewritten in place.
    func testAnExistingReadableFileIsReplacedByAPrivateOne() async throws {
        let path = directory.appendingPathComponent("tokens/b.json").path
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(
            atPath: path, contents: Data("{}".utf8), attributes: [.posixPermissions: 0o644]))
        let before = try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? NSNumber
        try await FileTokenStore(path: path).write(TokenInfo(accessToken: "B", expiresIn: 60))
        let after = try FileManager.default.attributesOfItem(atPath: path)
        XCTAssertEqual((after[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        XCTAssertNotEqual(after[.systemFileNumber] as? NSNumber, before, "a new file was renamed over the old one")
    }

    /// Readers running while tokens are written only ever see a whole token, old or new.
    func testReadersNeverSeeAHalfWrittenFile() async throws {
        let path = directory.appendingPathComponent("c.json").path
        let padding = String(repeating: "p", count: 256 * 1024)  // large, so a torn write would be visible
        try await FileTokenStore(path: path).write(TokenInfo(accessToken: "0-" + padding, expiresIn: 60))
        let reader = Task.detached { () -> Int in
            let store = FileTokenStore(path: path)
            var reads = 0
            while true {
                let token = try await store.read()  // throws "damaged" on a torn file
                guard let token, token.accessToken.hasSuffix(padding) else { throw AuthError(.store, "torn read") }
                reads += 1
                if token.accessToken.hasPrefix("60-") { return reads }
            }
        }
        let writer = FileTokenStore(path: path)
        for round in 1...60 { try await writer.write(TokenInfo(accessToken: "\(round)-" + padding, expiresIn: 60)) }
        let reads = try await reader.value
        XCTAssertGreaterThan(reads, 1)
    }

    /// Two authenticators (as two mounts would) with their own store objects on one file: each refresh
    /// spends the newest refresh token exactly once, and the other side adopts the result.
    func testTwoAuthenticatorsSharingAFileAdoptInsteadOfRefreshing() async throws {
        let path = directory.appendingPathComponent("shared.json").path
        try await FileTokenStore(path: path).write(TokenInfo(accessToken: "T0", refreshToken: "R0", expiresIn: 3600))
        let server = SingleUseRefreshServer(current: "R0")
        let one = Authenticator(source: server, store: FileTokenStore(path: path))
        let two = Authenticator(source: server, store: FileTokenStore(path: path))
        var current = "T0"
        for round in 1...5 {
            let seenByOne = try await one.accessToken()
            let seenByTwo = try await two.accessToken()
            XCTAssertEqual(seenByOne, current)
            XCTAssertEqual(seenByTwo, current)
            // Box expires `current`; both sides see it rejected, concurrently.
            let rejected = current
            async let first = one.tokenRejected(rejected)
            async let second = two.tokenRejected(rejected)
            let results = try await [first, second]
            XCTAssertEqual(results[0], results[1], "round \(round): both sides use the same new token")
            current = try XCTUnwrap(results[0])
        }
        XCTAssertEqual(server.refreshes.withLock { $0 }, 5, "one refresh per expiry, across both sides")
        XCTAssertEqual(server.burned.withLock { $0 }, 0, "no refresh token was ever spent twice")
    }
}

/// Box's refresh semantics: each refresh token works once and yields the next pair.
final class SingleUseRefreshServer: TokenSource {
    let valid: Mutex<String>
    let refreshes = Mutex(0)
    let burned = Mutex(0)

    init(current: String) { valid = Mutex(current) }

    func fetchToken(previous: TokenInfo?) async throws -> TokenInfo {
        try await Task.sleep(nanoseconds: 20_000_000)
        let number: Int? = valid.withLock { current in
            guard previous?.refreshToken == current else { return nil }
            let next = refreshes.withLock { value in
                value += 1
                return value
            }
            current = "R\(next)"
            return next
        }
        guard let number else {
            burned.withLock { $0 += 1 }
            throw AuthError(.grantRefused("invalid_grant"), "Invalid refresh token")
        }
        return TokenInfo(accessToken: "T\(number)", refreshToken: "R\(number)", expiresIn: 3600)
    }
}
