import Foundation
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// The items pinned on a mount (`boxfs pin`), kept in a small JSON file of the mount's state folder
/// (`pins-<root folder id>.json` in the account's cache folder), so pins outlive the mount.
///
/// Pins are by Box id: a pinned folder renamed or moved on Box stays pinned; `path` (below the mount's root, as it
/// was when pinned) is only what is shown. The file is replaced whole, crash-safe: written to a temp file, synced,
/// renamed over the old one, and the folder synced; a crash leaves the old set or the new one.
struct PinSet: Codable, Sendable, Equatable {
    struct Pin: Codable, Sendable, Equatable {
        /// The Box id of the pinned folder or file.
        var id: String
        /// `folder` or `file`.
        var kind: String
        /// Below the mount's root, as it was when pinned (`""`: the root itself).
        var path: String
        var pinnedAt: Date
    }

    var version = 1
    var pins: [Pin] = []

    static func load(from url: URL) throws -> PinSet {
        guard let data = try? Data(contentsOf: url) else { return PinSet() }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(PinSet.self, from: data)
    }

    func save(to url: URL) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        try Syscall.replaceFile(url.path, with: try encoder.encode(self))
    }
}
