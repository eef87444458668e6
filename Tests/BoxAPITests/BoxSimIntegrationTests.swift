import BoxAuth
import BoxTestSupport
import CurlHTTP
import Foundation
import XCTest

@testable import BoxAPI

/// The client against a real boxsim process over real sockets; boxsim's request log shows what
/// went over the wire.
final class BoxSimIntegrationTests: BoxSimClientTestCase {
    func testCurrentUser() async throws {
        let (sim, client) = try await start()
        let user = try await client.currentUser()
        XCTAssertFalse(user.id.isEmpty)
        XCTAssertFalse(user.login.isEmpty)
        XCTAssertGreaterThan(user.spaceAmount, 0)
        XCTAssertGreaterThanOrEqual(user.spaceUsed, 0)
        let calls = try await logged(sim, atLeast: 1) { $0.path == "/2.0/users/me" }
        XCTAssertEqual(calls.map(\.status), [200])
        XCTAssertEqual(calls.first?.authorization, true)
    }

    func testFolderItemsPagesByThousand() async throws {
        let count = 2_345
        var files: [String: Data] = [:]
        for index in 0..<count { files["many/file-\(index).txt"] = Data("entry \(index)\n".utf8) }
        let (sim, client) = try await start(seed: try SeedTree.make(files: files))
        let folder = try await client.item(atPath: "/many")
        XCTAssertEqual(folder.kind, .folder)

        let before = try sim.requestLog().count
        let items = try await client.folderItems(id: folder.id)
        XCTAssertEqual(items.count, count)
        XCTAssertEqual(Set(items.map(\.name)), Set((0..<count).map { "file-\($0).txt" }))
        XCTAssertEqual(Set(items.map(\.id)).count, count, "no entry twice")
        for item in items.prefix(50) {
            XCTAssertEqual(item.kind, .file)
            XCTAssertEqual(item.size, Int64(files["many/\(item.name)"]!.count), item.name)
            XCTAssertEqual(item.parentID, folder.id)
            XCTAssertNotNil(item.sha1)
            XCTAssertNotNil(item.contentModifiedAt)
        }

        let listPath = "/2.0/folders/\(folder.id)/items"
        let expectedCalls = (count + 999) / 1000
        let calls = try await logged(sim, atLeast: expectedCalls) { $0.seq > before && $0.path == listPath }
        XCTAssertEqual(calls.count, expectedCalls)
        XCTAssertTrue(calls.allSatisfy { $0.status == 200 && ($0.query ?? "").contains("usemarker=true") })
    }

    func testItemAtPathIsCaseInsensitive() async throws {
        let readme = Data("hello from the seed\n".utf8)
        let seed = try SeedTree.make(files: ["Docs/Sub/ReadMe.txt": readme, "top.txt": Data("t".utf8)])
        let (_, client) = try await start(seed: seed)
        let exact = try await client.item(atPath: "/Docs/Sub/ReadMe.txt")
        XCTAssertEqual(exact.kind, .file)
        XCTAssertEqual(exact.size, Int64(readme.count))
        let folded = try await client.item(atPath: "/docs/SUB/readme.TXT")
        XCTAssertEqual(folded.id, exact.id)
        let root = try await client.item(atPath: "/")
        XCTAssertEqual(root.id, "0")
        do {
            _ = try await client.item(atPath: "/Docs/missing.txt")
            XCTFail("expected notFound")
        } catch let error as BoxAPIError {
            XCTAssertEqual(error.kind, .notFound)
        }
    }

    func testRangeDownloadFetchesExactlyTheRangeWithoutCredentialsAtTheLocation() async throws {
        let size = 3 * 1024 * 1024 + 17
        let seed = try SeedTree.make(largeFiles: ["big.bin": size])
        let expected = try Data(contentsOf: seed.appendingPathComponent("big.bin"))
        let (sim, client) = try await start(seed: seed)
        let file = try await client.item(atPath: "/big.bin")
        XCTAssertEqual(file.size, Int64(size))

        let range: Range<Int64> = 1_000_000..<1_004_096
        let bytes = try await client.download(fileID: file.id, range: range)
        XCTAssertEqual(bytes, expected.subdata(in: 1_000_000..<1_004_096))

        let content = try await logged(sim, atLeast: 1) { $0.path == "/2.0/files/\(file.id)/content" }
        XCTAssertEqual(content.map(\.status), [302])
        XCTAssertEqual(content.first?.authorization, true)
        let fetches = try await logged(sim, atLeast: 1) { $0.path.hasPrefix("/dl/") }
        XCTAssertEqual(fetches.count, 1)
        XCTAssertEqual(fetches.first?.authorization, false, "the download location gets no Authorization")
        XCTAssertEqual(fetches.first?.range, "bytes=1000000-1004095")
        XCTAssertEqual(fetches.first?.status, 206)
        XCTAssertEqual(fetches.first?.bytesSent, 4096)

        let tail = try await client.download(fileID: file.id, range: Int64(size - 10)..<Int64(size + 100))
        XCTAssertEqual(tail, expected.suffix(10))
        let whole = try await client.download(fileID: file.id, range: nil)
        XCTAssertEqual(whole, expected)
    }

    func testBadTokenIsUnauthorized() async throws {
        let (sim, client) = try await start(token: "not-the-token")
        do {
            _ = try await client.currentUser()
            XCTFail("expected unauthorized")
        } catch let error as BoxAPIError {
            XCTAssertEqual(error.kind, .unauthorized)
            XCTAssertEqual(error.status, 401)
            XCTAssertEqual(error.authError, "invalid_token")
            XCTAssertFalse(error.description.contains("not-the-token"), error.description)
        }
        let calls = try await logged(sim, atLeast: 1) { $0.path == "/2.0/users/me" }
        XCTAssertEqual(calls.map(\.status), [401], "a static token is not retried")
    }

    func testMissingItemsAreNotFound() async throws {
        let (_, client) = try await start()
        do {
            _ = try await client.file(id: "987654321")
            XCTFail("expected notFound")
        } catch let error as BoxAPIError {
            XCTAssertEqual(error.kind, .notFound)
            XCTAssertEqual(error.status, 404)
            XCTAssertEqual(error.code, "not_found")
        }
    }
}
