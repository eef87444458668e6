import BoxTestSupport
import Foundation
import XCTest

extension MountTestCase {
    /// A block cache folder of the test's own, removed when the test ends.
    func makeCacheDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("boxfs-cache-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    /// The block files under a cache folder.
    func blockFiles(in cache: URL) -> [URL] {
        let enumerator = FileManager.default.enumerator(at: cache, includingPropertiesForKeys: [.isRegularFileKey])
        return (enumerator?.allObjects as? [URL] ?? []).filter { $0.path.contains("/blocks/") && !$0.hasDirectoryPath }
    }

    /// Runs `script` with python3 in the mount (its working folder) and answers what it printed.
    func python(_ script: String, in fixture: MountFixture, file: StaticString = #filePath, line: UInt = #line) throws
        -> String {
        let result = try Shell.run(["python3", "-c", "import os, sys\nos.chdir(sys.argv[1])\n" + script,
                                    fixture.mountpoint.path])
        XCTAssertEqual(result.status, 0, "python failed: \(result.stderr)", file: file, line: line)
        return result.stdout
    }
}
