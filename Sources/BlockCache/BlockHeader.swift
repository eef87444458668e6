import Crypto
import Foundation

/// The header written before every block's bytes. All integers are little-endian.
///
/// ```
/// offset size field
///      0    8 magic "BOXFSBLK"
///      8    4 layout version (BlockCache.layoutVersion)
///     12    4 header length = 64 + file id length + version length
///     16    8 block index
///     24    4 data length (1 ... block size)
///     28    2 file id length (UTF-8 bytes)
///     30    2 version length (UTF-8 bytes)
///     32   32 SHA-256 over bytes 0..<32, then bytes 64..<header length, then the data
///     64    n file id, then version (UTF-8)
/// ```
/// SHA-256 because BoringSSL's SHA-NI code hashes ~1.7 GiB/s here, faster than a table CRC32C in
/// Swift (~1.4 GiB/s optimised, far slower in debug builds), and it also rules out silent collisions.
struct BlockHeader: Equatable {
    static let magic: [UInt8] = Array("BOXFSBLK".utf8)
    static let fixedLength = 64
    static let checksumRange = 32..<64

    let fileID: [UInt8]
    let version: [UInt8]
    let block: UInt64
    let dataLength: UInt32

    var length: Int { Self.fixedLength + fileID.count + version.count }

    init(fileID: String, version: String, block: Int, dataLength: Int) {
        self.fileID = Array(fileID.utf8)
        self.version = Array(version.utf8)
        self.block = UInt64(block)
        self.dataLength = UInt32(dataLength)
    }

    /// The header bytes, checksum included, for a block holding `data`.
    func encoded(for data: Data) -> [UInt8] {
        var bytes = Self.magic
        bytes.reserveCapacity(length)
        append(UInt32(BlockCache.layoutVersion), to: &bytes)
        append(UInt32(length), to: &bytes)
        append(block, to: &bytes)
        append(dataLength, to: &bytes)
        append(UInt16(fileID.count), to: &bytes)
        append(UInt16(version.count), to: &bytes)
        bytes += [UInt8](repeating: 0, count: 32)
        bytes += fileID
        bytes += version
        let digest = Self.checksum(header: bytes, data: data)
        bytes.replaceSubrange(Self.checksumRange, with: digest)
        return bytes
    }

    /// Checks `stored` (the header bytes read from disk) and `data` against this expected header.
    /// Returns nil when everything matches, else the reason the block must be discarded.
    func mismatch(stored: [UInt8], data: Data) -> String? {
        guard stored.count == length else { return "header length" }
        let expected = encoded(for: data)
        guard stored[0..<Self.checksumRange.lowerBound] == expected[0..<Self.checksumRange.lowerBound] else {
            return "header fields (magic, layout version, block index or length)"
        }
        guard stored[Self.fixedLength...] == expected[Self.fixedLength...] else { return "file id or version" }
        guard stored[Self.checksumRange] == expected[Self.checksumRange] else { return "checksum" }
        return nil
    }

    private static func checksum(header: [UInt8], data: Data) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(data: header[0..<checksumRange.lowerBound])
        hasher.update(data: header[fixedLength...])
        hasher.update(data: data)
        return Array(hasher.finalize())
    }

    private func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }
}
