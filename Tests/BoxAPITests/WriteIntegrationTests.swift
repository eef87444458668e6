import BoxAuth
import BoxTestSupport
import CurlHTTP
import Foundation
import XCTest

@testable import BoxAPI

/// The write calls against a real boxsim process.
final class WriteIntegrationTests: XCTestCase {
    private var sim: BoxSimProcess?
    private var http: HTTPClient?
    private var files: [URL] = []

    override func tearDown() {
        http?.shutdown()
        sim?.stop()
        for file in files { try? FileManager.default.removeItem(at: file) }
        super.tearDown()
    }

    private func start() async throws -> BoxClient {
        let sim = try await BoxSimProcess.start()
        let http = HTTPClient()
        self.sim = sim
        self.http = http
        return BoxClient(
            endpoints: BoxEndpoints(serverBase: sim.baseURL), http: http,
            tokens: StaticTokenProvider(token: sim.developerToken))
    }

    private func local(_ data: Data) throws -> String {
        let url = try temporaryFile(data)
        files.append(url)
        return url.path
    }

    func testFolderLifecycle() async throws {
        let client = try await start()
        let docs = try await client.createFolder(name: "Docs", parentID: "0")
        XCTAssertEqual(docs.kind, .folder)
        XCTAssertEqual(docs.parentID, "0")
        do {
            _ = try await client.createFolder(name: "docs", parentID: "0")
            XCTFail("names are unique regardless of case")
        } catch let error as BoxAPIError {
            XCTAssertTrue(error.isNameInUse)
            XCTAssertEqual(error.conflicts.map(\.id), [docs.id])
        }
        let archive = try await client.createFolder(name: "Archive", parentID: "0")
        let renamed = try await client.updateFolder(id: docs.id, name: "Papers", ifMatch: docs.etag)
        XCTAssertEqual(renamed.name, "Papers")
        do {
            _ = try await client.updateFolder(id: docs.id, name: "Stale", ifMatch: docs.etag)
            XCTFail("the etag moved with the rename")
        } catch let error as BoxAPIError {
            XCTAssertTrue(error.isPreconditionFailed)
        }
        let moved = try await client.updateFolder(id: docs.id, parentID: archive.id)
        XCTAssertEqual(moved.parentID, archive.id)
        _ = try await client.uploadFile(path: try local(Data("x".utf8)), name: "x.txt", parentID: docs.id)
        do {
            try await client.deleteFolder(id: archive.id, recursive: false)
            XCTFail("not empty")
        } catch let error as BoxAPIError {
            XCTAssertEqual(error.code, "folder_not_empty")
        }
        try await client.deleteFolder(id: archive.id, recursive: true)
        let left = try await client.folderItems(id: "0")
        XCTAssertEqual(left.map(\.name), [])
    }

    func testUploadVersionRenameCopyDelete() async throws {
        let client = try await start()
        let v1 = Data("first\n".utf8)
        let preflight = try await client.preflightUpload(name: "a.txt", parentID: "0", size: Int64(v1.count))
        XCTAssertNotNil(preflight.uploadURL)
        let modified = Date(timeIntervalSince1970: 1_500_000_000)
        let file = try await client.uploadFile(
            path: try local(v1), name: "a.txt", parentID: "0", contentModifiedAt: modified)
        XCTAssertEqual(file.sha1, FileDigest.sha1(v1).hex)
        XCTAssertEqual(file.size, Int64(v1.count))
        XCTAssertEqual(file.contentModifiedAt, modified)
        do {
            _ = try await client.preflightUpload(name: "A.TXT", parentID: "0", size: 1)
            XCTFail("preflight sees the name taken")
        } catch let error as BoxAPIError {
            XCTAssertTrue(error.isNameInUse)
            XCTAssertEqual(error.conflicts.first?.id, file.id)
        }

        let v2 = Data("second version\n".utf8)
        let updated = try await client.uploadVersion(fileID: file.id, path: try local(v2), ifMatch: file.etag)
        XCTAssertEqual(updated.id, file.id, "a new version keeps the id")
        XCTAssertNotEqual(updated.fileVersionID, file.fileVersionID)
        let served = try await client.download(fileID: file.id, range: nil)
        XCTAssertEqual(served, v2)
        do {
            _ = try await client.uploadVersion(fileID: file.id, path: try local(Data("late".utf8)), ifMatch: file.etag)
            XCTFail("stale etag")
        } catch let error as BoxAPIError {
            XCTAssertTrue(error.isPreconditionFailed)
        }

        let renamed = try await client.updateFile(id: file.id, name: "b.txt")
        XCTAssertEqual(renamed.name, "b.txt")
        let copy = try await client.copyFile(id: file.id, toParentID: "0", name: "c.txt")
        XCTAssertEqual(copy.sha1, FileDigest.sha1(v2).hex)
        try await client.deleteFile(id: file.id, ifMatch: renamed.etag)
        let names = try await client.folderItems(id: "0").map(\.name)
        XCTAssertEqual(names, ["c.txt"])
    }

    func testChunkedSessionFromCreateToCommit() async throws {
        let client = try await start()
        let size = 21 * 1024 * 1024
        let data = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) })
        let path = try local(data)
        let session = try await client.createUploadSession(parentID: "0", name: "big.bin", size: Int64(size))
        XCTAssertGreaterThan(session.partSize, 0)
        let ranges = (0..<session.totalParts).map { session.range(ofPart: $0, fileSize: Int64(size)) }
        XCTAssertEqual(ranges.last?.upperBound, Int64(size))
        var parts: [UploadPart] = []
        for range in ranges.reversed() {  // any order
            parts.append(try await client.uploadPart(session, path: path, range: range, fileSize: Int64(size)))
        }
        let listed = try await client.uploadedParts(session)
        XCTAssertEqual(Set(listed.map(\.offset)), Set(ranges.map(\.lowerBound)))
        let item = try await client.commitUploadSession(session, parts: parts, fileSHA1: FileDigest.sha1(data))
        XCTAssertEqual(item.sha1, FileDigest.sha1(data).hex)
        XCTAssertEqual(item.size, Int64(size))

        let other = try await client.createUploadSession(fileID: item.id, size: Int64(size))
        try await client.abortUploadSession(other)
        do {
            _ = try await client.uploadedParts(other)
            XCTFail("aborted")
        } catch let error as BoxAPIError {
            XCTAssertEqual(error.kind, .notFound)
        }
    }
}
