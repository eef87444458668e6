import Crypto
import Foundation

/// Identifies one cached block by the names its file carries on disk:
/// `<file>~<version>~<block>` inside the fan-out directory `fanOut` (two hex digits).
///
/// `file` and `version` are the Box file id and version, escaped so any string is a safe file
/// name: bytes outside `[A-Za-z0-9_.-]` become `%XX`, and a component that would be longer than
/// `maxComponent` becomes `@` + 40 hex digits of its SHA-256. The header inside the file carries
/// the unescaped strings, so even a hash collision could only cause a miss, never wrong bytes.
struct BlockKey: Hashable, Sendable {
    static let maxComponent = 80
    /// Longest Box file id or version accepted (UTF-8 bytes); keeps the header under 512 bytes.
    static let maxRawLength = 200

    let file: String
    let version: String
    let block: Int

    init?(fileID: String, version: String, block: Int) {
        guard block >= 0,
              let file = Self.escape(fileID), let version = Self.escape(version) else { return nil }
        self.init(escapedFile: file, escapedVersion: version, block: block)
    }

    private init(escapedFile: String, escapedVersion: String, block: Int) {
        self.file = escapedFile
        self.version = escapedVersion
        self.block = block
    }

    /// Parses a block file name written by `fileName`; nil for anything else.
    init?(fileName: String) {
        let parts = fileName.split(separator: "~", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty,
              let block = Int(parts[2]), block >= 0, String(block) == parts[2] else { return nil }
        self.init(escapedFile: String(parts[0]), escapedVersion: String(parts[1]), block: block)
    }

    var fileName: String { "\(file)~\(version)~\(block)" }
    /// Names the block's file version (`<file>~<version>`): the name of its `verified/` marker.
    var versionName: String { "\(file)~\(version)" }

    /// The fan-out directory: spreads files over 256 folders so none grows huge.
    var fanOut: String { Self.fanOut(ofEscapedFile: file) }

    /// FNV-1a of the escaped file id, reduced to one byte: stable across runs and platforms.
    static func fanOut(ofEscapedFile file: String) -> String {
        var hash: UInt32 = 2_166_136_261
        for byte in file.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        let byte = UInt8(truncatingIfNeeded: hash ^ (hash >> 8) ^ (hash >> 16) ^ (hash >> 24))
        return String(byte >> 4, radix: 16) + String(byte & 0xF, radix: 16)
    }

    /// The escaped name component for `raw`; nil if it is empty or too long to be a Box id/version.
    static func escape(_ raw: String) -> String? {
        let bytes = Array(raw.utf8)
        guard !bytes.isEmpty, bytes.count <= maxRawLength else { return nil }
        var escaped = ""
        escaped.reserveCapacity(bytes.count)
        for byte in bytes {
            if isSafe(byte) {
                escaped.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                escaped += "%" + hexDigit(byte >> 4) + hexDigit(byte & 0xF)
            }
        }
        guard escaped.utf8.count > maxComponent else { return escaped }
        let digest = SHA256.hash(data: Data(bytes))
        return "@" + digest.prefix(20).map { String(format: "%02x", $0) }.joined()
    }

    private static func hexDigit(_ nibble: UInt8) -> String {
        String(nibble, radix: 16, uppercase: true)
    }

    private static func isSafe(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."):
            return true
        default:
            return false
        }
    }
}
