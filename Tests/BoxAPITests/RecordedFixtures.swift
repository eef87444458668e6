import Foundation
import XCTest

/// Box's recorded real responses in `Tests/Fixtures/box-api/recorded/`, found from this file's location
/// (package root = three levels up from this file).
enum RecordedFixtures {
    static let directory: URL = {
        let here = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        let packageRoot = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return packageRoot.appendingPathComponent("Tests/Fixtures/box-api/recorded")
    }()

    /// The bytes of `recorded/<name>`, e.g. `Files/GetFileInfo.json`.
    static func data(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> Data {
        let url = directory.appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: url.path) else {
            XCTFail("missing recorded response \(url.path)", file: file, line: line)
            throw CocoaError(.fileNoSuchFile)
        }
        return try Data(contentsOf: url)
    }

    /// Every recorded JSON file under `recorded/<folder>`.
    static func names(in folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent(folder).path)
            .filter { $0.hasSuffix(".json") }.sorted().map { "\(folder)/\($0)" }
    }
}

/// RFC 3339 text → Date via an independent route (Foundation's formatter), for expectations.
func referenceDate(_ text: String) -> Date {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime]
    return formatter.date(from: text)!
}
