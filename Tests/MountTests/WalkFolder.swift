import BoxTestSupport
import Foundation
import XCTest

/// A folder `walk/` of small files whose sizes all differ (so a download's `bytes_sent` says which file it was), for
/// tests of what a walk in listing order fetches ahead.
enum WalkFolder {
    /// One file's name, Box id and size.
    struct File {
        let name: String
        let id: String
        let size: Int64
        var text: String { WalkFolder.text(name: name, size: size) }
    }

    /// The content of file `name` of `size` bytes: its name, then dots.
    static func text(name: String, size: Int64) -> String {
        "\(name)\n".padding(toLength: Int(size), withPad: ".", startingAt: 0)
    }

    /// `count` files, `file-NN.txt` of 1,000 + 37 × NN bytes, under `walk/`.
    static func texts(count: Int) -> [String: String] {
        var texts: [String: String] = [:]
        for index in 0..<count {
            let name = String(format: "file-%02d.txt", index)
            texts["walk/" + name] = text(name: name, size: Int64(1000 + 37 * index))
        }
        return texts
    }

    /// The files of `walk/` as the mount lists them (readdir order), with their Box ids from `sim`.
    static func listed(_ mount: MountFixture, sim: BoxSimProcess, count: Int, in test: MountTestCase) throws -> [File] {
        let entries = try BoxSimAPI(sim).tree()
        let names = try test.succeed(["ls", "-f", mount.path("walk")]).split(separator: "\n").map(String.init)
            .filter { $0 != "." && $0 != ".." }
        XCTAssertEqual(names.count, count)
        return try names.map { name in
            let entry = try XCTUnwrap(entries["walk/" + name], name)
            return File(name: name, id: entry.id, size: entry.size)
        }
    }
}
