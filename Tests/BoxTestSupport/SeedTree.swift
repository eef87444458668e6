import Foundation
import Synchronization

/// Builds local directory trees for `boxsim serve --seed`.
///
/// Every tree is removed by `removeAll()` (the mount test cases call it when a test ends) or when the test process
/// exits: left behind, 192 MiB trees of the read tests filled a 100 GB disk over some fifty runs.
public enum SeedTree {
    /// Trees made and not removed yet.
    private static let made = Mutex<[URL]>([])
    private static let removedAtExit: Void = { atexit { SeedTree.removeAll() } }()

    /// Removes every tree made so far (call once nothing serves them any more).
    public static func removeAll() {
        let roots = made.withLock { made in
            defer { made = [] }
            return made
        }
        for root in roots { try? FileManager.default.removeItem(at: root) }
    }

    /// Creates a fresh temp directory holding `files` (relative paths; folders are created as needed) and, for
    /// each entry of `largeFiles`, a file of that many deterministic pseudo-random bytes written in chunks.
    public static func make(files: [String: Data] = [:], largeFiles: [String: Int] = [:]) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("boxsim-seed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        removedAtExit
        made.withLock { $0.append(root) }
        for (path, contents) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try contents.write(to: url)
        }
        for (path, size) in largeFiles {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try writePatternFile(at: url, size: size)
        }
        return root
    }

    /// Convenience for text files.
    public static func make(texts: [String: String], largeFiles: [String: Int] = [:]) throws -> URL {
        try make(files: texts.mapValues { Data($0.utf8) }, largeFiles: largeFiles)
    }

    /// Writes `size` deterministic bytes (an xorshift stream, so every offset's byte is checkable) 1 MiB at a time.
    public static func writePatternFile(at url: URL, size: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) throws {
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var state = seed
        var remaining = size
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while remaining > 0 {
            let count = min(remaining, chunk.count)
            var index = 0
            while index < count {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                withUnsafeBytes(of: state.littleEndian) { word in
                    for byte in word where index < count {
                        chunk[index] = byte
                        index += 1
                    }
                }
            }
            try handle.write(contentsOf: chunk[0..<count])
            remaining -= count
        }
    }
}
