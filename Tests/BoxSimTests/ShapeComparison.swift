import Foundation
import XCTest

/// Compares boxsim answers with Box's recorded answers (`Tests/Fixtures/box-api/recorded/`) by JSON shape and collects
/// every difference that `RecordedShapeAllowList` does not explain; `assertClean()` fails with the whole list,
/// and also names allow-list entries of the compared recordings that no longer match anything (stale).
final class ShapeComparison {
    static let recordedDirectory: URL = {
        if let path = ProcessInfo.processInfo.environment["BOX_API_RECORDED"] { return URL(fileURLWithPath: path) }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/box-api/recorded")
    }()

    /// Every recording, as `Group/Name.json`.
    static func allRecordings() throws -> [String] {
        let root = recordedDirectory
        let groups = try FileManager.default.contentsOfDirectory(atPath: root.path)
        return try groups.flatMap { group -> [String] in
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: root.appendingPathComponent(group).path,
                                                 isDirectory: &isDirectory), isDirectory.boolValue else { return [] }
            return try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(group).path)
                .filter { $0.hasSuffix(".json") }.map { "\(group)/\($0)" }
        }.sorted()
    }

    private(set) var compared: [String] = []
    private var unexplained: [String] = []
    private var usedAllowances: Set<RecordedShapeAllowList.Entry> = []

    /// Compares `recording` with boxsim's answer `result` (which must have `status`), or with the part of it at
    /// `path` (dotted object members).
    func compare(_ recording: String, _ result: CurlResult, status: Int, path: String? = nil,
                 file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(result.status, status, "\(recording): boxsim answered \(result.text.prefix(300))",
                       file: file, line: line)
        let recorded = try JSONValueNode.parse(Data(contentsOf: Self.recordedDirectory.appendingPathComponent(recording)))
        var mine = try JSONValueNode.parse(result.body)
        if let path { mine = try XCTUnwrap(mine.at(path), "\(recording): no \(path) in \(result.text)") }
        compared.append(recording)
        for difference in JSONShape(mine).differences(from: JSONShape(recorded)) {
            if let entry = RecordedShapeAllowList.entry(for: difference, in: recording) {
                usedAllowances.insert(entry)
            } else {
                unexplained.append("\(recording): \(difference)")
            }
        }
    }

    func assertClean(file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(unexplained.isEmpty, "shape differences from Box's recordings (fix boxsim, or allow-list them "
                      + "with a reason):\n" + unexplained.joined(separator: "\n"), file: file, line: line)
        let stale = RecordedShapeAllowList.entries.filter { entry in
            !entry.recordings.isDisjoint(with: compared) && !usedAllowances.contains(entry)
        }
        XCTAssertTrue(stale.isEmpty, "allow-list entries that no longer match a difference:\n"
                      + stale.map { "\($0.recordings.sorted()) \($0.path)" }.joined(separator: "\n"), file: file, line: line)
    }
}
