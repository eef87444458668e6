import BoxTestSupport
import Foundation
import XCTest

/// OAuth2 3-legged: `boxfs login` prints the authorize URL, receives the redirect on a loopback port, checks
/// `state`, exchanges the code and saves the profile, after which a mount needs no flag.
final class AuthLoginTests: AuthMountTestCase {
    func testLoginThenMountNeedsNoOtherFlag() throws {
        let result = try login()
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("/api/oauth2/authorize?response_type=code"), result.stdout)
        XCTAssertTrue(result.stdout.contains("Signed in to Box as"), result.stdout)
        let mountpoint = try mounted()
        XCTAssertEqual(try read(mountpoint, "a.txt").stdout, "alpha\n")
        for file in ["profiles/default.toml", "tokens/default.json"] {
            let mode = try FileManager.default.attributesOfItem(
                atPath: configDirectory.appendingPathComponent(file).path)[.posixPermissions] as? NSNumber
            XCTAssertEqual(mode?.intValue, 0o600, file)
        }
    }

    /// A redirect that does not carry the `state` boxfs sent (a forged sign-in) is refused: its code is never
    /// exchanged and nothing is saved.
    func testARedirectWithAnotherStateIsRefused() throws {
        // A "browser" that skips Box and calls boxfs's redirect URI itself, with a code and state of its own.
        let forger = try privateFile("""
            #!/bin/bash
            encoded=$(printf '%s' "$1" | sed -n 's/.*[?&]redirect_uri=\\([^&]*\\).*/\\1/p')
            redirect=$(printf '%b' "${encoded//%/\\\\x}")
            curl -sS -o /dev/null "$redirect?code=forged-code&state=forged-state"
            """, name: "forger.sh")
        chmod(forger, 0o700)
        let result = try login(browser: forger)
        XCTAssertEqual(result.status, 1, result.stdout)
        XCTAssertTrue(result.stderr.contains("did not carry the state"), result.stderr)
        XCTAssertEqual(try tokenCalls().count, 0, "the forged code was never exchanged")
        for file in ["profiles/default.toml", "tokens/default.json"] {
            XCTAssertFalse(configFileExists(file), file)
        }
    }
}
