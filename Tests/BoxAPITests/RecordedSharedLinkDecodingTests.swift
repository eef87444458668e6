import Foundation
import XCTest

@testable import BoxAPI

/// The answers of `setSharedLink` / `removeSharedLink` (`fields=shared_link`) and of `lockFile` / `unlockFile`, as
/// Box's recorded real responses give them, decode to the right values.
final class RecordedSharedLinkDecodingTests: XCTestCase {
    private func link(_ name: String) throws -> SharedLink? {
        try BoxJSON.decode(SharedLinkHolderDTO.self, from: RecordedFixtures.data(name)).link
    }

    func testAFilesSharedLink() throws {
        let shared = try XCTUnwrap(try link("Files/GetFileSharedLink.json"))
        XCTAssertEqual(shared.url, "https://www.box.com/s/rh935iit6ewrmw0unyul")
        XCTAssertEqual(shared.downloadURL, "https://www.box.com/shared/static/rh935iit6ewrmw0unyul.jpeg")
        XCTAssertNil(shared.vanityURL)
        XCTAssertEqual(shared.access, "open")
        XCTAssertTrue(shared.isPasswordEnabled)
        XCTAssertNil(shared.unsharedAt)
        XCTAssertEqual(shared.canDownload, true)
        XCTAssertEqual(shared.downloadCount, 0)
    }

    func testARemovedLinkIsNone() throws {
        XCTAssertNil(try link("Files/RemoveFileSharedLink.json"))
        XCTAssertNil(try link("Folders/RemoveFolderSharedLink.json"))
    }

    func testAVanityLink() throws {
        let shared = try XCTUnwrap(try link("Files/GetFileSharedLink_VanityNameEnabled.json"))
        XCTAssertEqual(shared.url, "https://cloud.box.com/v/testVanityName")
        XCTAssertEqual(shared.vanityURL, "https://cloud.box.com/v/testVanityName")
        XCTAssertFalse(shared.isPasswordEnabled)
    }

    /// `lockFile` asks for every field, so Box's answer is a whole item; the recorded answer (to `fields=lock`)
    /// has no name, so its `lock` is decoded alone. (The recorded `UnlockFile.json` repeats it; the unlock is
    /// checked against boxsim by the command tests.)
    func testALockAnswer() throws {
        struct LockOnly: Decodable { var lock: LockDTO }
        let lock = try BoxJSON.decode(LockOnly.self, from: RecordedFixtures.data("Files/LockFile.json")).lock.lock
        XCTAssertEqual(lock.id, "2126286840")
        XCTAssertEqual(lock.createdByID, "277699565")
        XCTAssertEqual(lock.createdByLogin, "user+integration@email.com")
        XCTAssertNil(lock.expiresAt)
        XCTAssertFalse(lock.isDownloadPrevented)
    }

    func testSettingsBecomeBoxsSharedLinkObject() {
        let settings = SharedLinkSettings(
            access: "open", password: "Secret-42", unsharedAt: Date(timeIntervalSince1970: 1_900_000_000), canDownload: false)
        let json = settings.json
        XCTAssertEqual(json["access"] as? String, "open")
        XCTAssertEqual(json["password"] as? String, "Secret-42")
        XCTAssertEqual(json["unshared_at"] as? String, "2030-03-17T17:46:40Z")
        XCTAssertEqual((json["permissions"] as? [String: Bool])?["can_download"], false)
        XCTAssertEqual(SharedLinkSettings().json.count, 0, "nothing set: Box's defaults, or the link's current values")
    }
}
