import Foundation
import XCTest

@testable import WriteBack

/// The recovery place keeps each content at its path below the mount, never over other content.
final class RecoveryPlaceTests: XCTestCase {
    func testOtherContentAtTheNameGetsANumberAndTheSameContentIsKeptOnce() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("recovery-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let place = RecoveryPlace(directory: root.appendingPathComponent("recovered/0"))
        let source = root.appendingPathComponent("staging")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)

        try Data("first\n".utf8).write(to: source)
        let first = try place.keep(source.path, relativePath: "docs/new.txt")
        XCTAssertEqual(first, place.directory.path + "/docs/new.txt")
        XCTAssertEqual(try place.keep(source.path, relativePath: "docs/new.txt"), first, "the same content: kept once")

        try Data("second\n".utf8).write(to: source)
        let second = try place.keep(source.path, relativePath: "docs/new.txt")
        XCTAssertEqual(second, place.directory.path + "/docs/new (2).txt")
        XCTAssertEqual(try String(contentsOfFile: first, encoding: .utf8), "first\n", "never replaced")
        XCTAssertEqual(try String(contentsOfFile: second, encoding: .utf8), "second\n")
        XCTAssertEqual(try place.keep(source.path, relativePath: "../../x/./y.txt"), place.directory.path + "/x/y.txt")
        XCTAssertEqual(place.files(), ["docs/new (2).txt", "docs/new.txt", "x/y.txt"], "no temporary file is left")
    }
}
