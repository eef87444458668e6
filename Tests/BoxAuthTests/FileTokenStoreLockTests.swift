import BoxAuth
import Foundation
import Synchronization
import XCTest

/// The file store's lock against a real second process (`flock(1)` on `<file>.lock`), as two mounts of one
/// account use it: Box refresh tokens are single-use, so whoever comes second must wait, re-read and adopt.
final class FileTokenStoreLockTests: XCTestCase {
    var directory: URL!
    var path: String { directory.appendingPathComponent("tokens.json").path }

    override func setUp() async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("boxauth-lock-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() async throws {
        try? FileManager.default.removeItem(at: directory)
    }

    func testExclusiveAccessWaitsWhileAnotherProcessHoldsTheLock() async throws {
        let store = FileTokenStore(path: path)
        let holder = try LockHoldingProcess(lockPath: store.lockPath, seconds: 1)
        let started = Date()
        let waited = try await store.withExclusiveAccess { Date().timeIntervalSince(started) }
        XCTAssertGreaterThan(waited, 0.7, "entered while the other process still held the lock")
        XCTAssertEqual(holder.waitUntilExit(), 0)
    }

    func testALockHeldTooLongFailsWithAClearError() async throws {
        let store = FileTokenStore(path: path, lockTimeout: 0.3)
        let holder = try LockHoldingProcess(lockPath: store.lockPath, seconds: 1)
        defer { holder.waitUntilExit() }
        do {
            try await store.withExclusiveAccess {}
            XCTFail("the lock was held by another process")
        } catch let error as AuthError {
            XCTAssertEqual(error.kind, .store)
            XCTAssertTrue(error.message.contains("another process"), error.message)
        }
    }

    /// The other process refreshes (spending R0 for T9/R9) while Box rejects our T0: we wait for its lock,
    /// re-read the file and adopt T9. Spending R0 again would be refused by Box.
    func testARejectedTokenAdoptsWhatAnotherProcessRefreshedMeanwhile() async throws {
        try await FileTokenStore(path: path).write(TokenInfo(accessToken: "T0", refreshToken: "R0", expiresIn: 3600))
        let box = SingleUseRefreshServer(current: "R9")
        let authenticator = Authenticator(source: box, store: FileTokenStore(path: path))
        let first = try await authenticator.accessToken()
        XCTAssertEqual(first, "T0")
        let other = try LockHoldingProcess(
            lockPath: FileTokenStore(path: path).lockPath, seconds: 0.5, replacing: path,
            with: LockHoldingProcess.tokenJSON(access: "T9", refresh: "R9", expiresIn: 3600))
        let replacement = try await authenticator.tokenRejected("T0")
        XCTAssertEqual(other.waitUntilExit(), 0)
        XCTAssertEqual(replacement, "T9", "the other process's token is adopted")
        XCTAssertEqual(box.refreshes.withLock { $0 }, 0, "no refresh token was spent")
        XCTAssertEqual(box.burned.withLock { $0 }, 0, "the spent R0 was never sent again")
    }

    /// `boxfs logout` while a mount refreshes: the logout waits for the refresh and revokes its result, so no
    /// fresh token outlives the logout in the file.
    func testRevokeWaitsForARefreshInAnotherProcessAndRevokesItsToken() async throws {
        try await FileTokenStore(path: path).write(TokenInfo(accessToken: "T0", refreshToken: "R0", expiresIn: 3600))
        let source = RevocationRecorder()
        let other = try LockHoldingProcess(
            lockPath: FileTokenStore(path: path).lockPath, seconds: 0.5, replacing: path,
            with: LockHoldingProcess.tokenJSON(access: "T9", refresh: "R9", expiresIn: 3600))
        try await Authenticator(source: source, store: FileTokenStore(path: path)).revoke()
        XCTAssertEqual(other.waitUntilExit(), 0)
        XCTAssertEqual(source.revoked.withLock { $0 }, ["T9"], "the newest token is the one revoked")
        let left = try await FileTokenStore(path: path).read()
        XCTAssertNil(left, "the store is empty after the logout")
    }
}

/// Records what it is asked to revoke; never hands out tokens.
final class RevocationRecorder: TokenSource {
    let revoked = Mutex<[String]>([])

    func fetchToken(previous: TokenInfo?) async throws -> TokenInfo {
        throw AuthError(.notSignedIn, "not signed in")
    }

    func revoke(_ token: TokenInfo) async throws {
        revoked.withLock { $0.append(token.accessToken) }
    }
}
