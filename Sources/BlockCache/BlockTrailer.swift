import Foundation

/// The trailer written after every block's bytes (after, so the data starts at offset 0 and can be
/// written with `O_DIRECT`). All integers are little-endian.
///
/// ```
/// offset size field (offsets from the trailer's start, which is the data length)
///      0    8 magic "BOXFSBK2"
///      8    4 layout version (BlockCache.layoutVersion)
///     12    4 trailer length = 64 + file id length + version length
///     16    8 block index
///     24    4 data length (1 ... block size)
///     28    2 file id length (UTF-8 bytes)
///     30    2 version length (UTF-8 bytes)
///     32    8 checksum: XXH64 of the data, seeded with XXH64 of the trailer without this field
///     40   24 zero
///     64    n file id, then version (UTF-8)
/// ```
/// Every byte of the file is covered: the data and the trailer's fields by the checksum, the
/// trailer's length by the file size the reader expects from the key.
struct BlockTrailer: Equatable {
    static let magic: [UInt8] = Array("BOXFSBK2".utf8)
    static let fixedLength = 64
    static let checksumRange = 32..<40

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

    /// The trailer bytes, checksum included, for a block holding `data`.
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
        let checksum = Self.checksum(trailer: bytes, data: data)
        withUnsafeBytes(of: checksum.littleEndian) { bytes.replaceSubrange(Self.checksumRange, with: $0) }
        return bytes
    }

    /// Checks `stored` (the trailer bytes read from disk) and `data` against this expected trailer.
    /// Returns nil when everything matches, else the reason the block must be discarded.
    func mismatch(stored: [UInt8], data: Data) -> String? {
        guard stored.count == length else { return "trailer length" }
        let expected = encoded(for: data)
        guard stored[0..<Self.checksumRange.lowerBound] == expected[0..<Self.checksumRange.lowerBound] else {
            return "trailer fields (magic, layout version, block index or length)"
        }
        guard stored[Self.checksumRange.upperBound...] == expected[Self.checksumRange.upperBound...] else {
            return "file id or version"
        }
        guard stored[Self.checksumRange] == expected[Self.checksumRange] else { return "checksum" }
        return nil
    }

    private static func checksum(trailer: [UInt8], data: Data) -> UInt64 {
        var fields = Array(trailer[0..<checksumRange.lowerBound])
        fields += trailer[checksumRange.upperBound...]
        let seed = fields.withUnsafeBytes { XXHash64.hash($0) }
        return data.withUnsafeBytes { XXHash64.hash($0, seed: seed) }
    }

    private func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }
}
