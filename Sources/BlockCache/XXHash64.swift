/// XXH64, Yann Collet's 64-bit xxHash (written from the published algorithm description): the
/// checksum of cached blocks.
///
/// Why not SHA-256 (the first layout's choice): even with SHA-NI, SHA-256 runs at ~1.7 GiB/s here
/// and cost 17 % of the daemon's CPU during a cold read; this runs at ~8 GiB/s in an optimised build.
/// A block checksum guards against a damaged disk or a torn write, not against an attacker (the
/// cache folder is private to its user), so a good 64-bit non-cryptographic hash is enough.
enum XXHash64 {
    private static let prime1: UInt64 = 0x9E37_79B1_85EB_CA87
    private static let prime2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    private static let prime3: UInt64 = 0x1656_67B1_9E37_79F9
    private static let prime4: UInt64 = 0x85EB_CA77_C2B2_AE63
    private static let prime5: UInt64 = 0x27D4_EB2F_1656_67C5

    /// The hash of `bytes` with `seed`.
    static func hash(_ bytes: UnsafeRawBufferPointer, seed: UInt64 = 0) -> UInt64 {
        let count = bytes.count
        var offset = 0
        var hash: UInt64
        if count >= 32 {
            var lanes = (seed &+ prime1 &+ prime2, seed &+ prime2, seed, seed &- prime1)
            while offset <= count - 32 {
                lanes.0 = round(lanes.0, word(bytes, offset))
                lanes.1 = round(lanes.1, word(bytes, offset + 8))
                lanes.2 = round(lanes.2, word(bytes, offset + 16))
                lanes.3 = round(lanes.3, word(bytes, offset + 24))
                offset += 32
            }
            hash = rotate(lanes.0, 1) &+ rotate(lanes.1, 7) &+ rotate(lanes.2, 12) &+ rotate(lanes.3, 18)
            hash = merge(merge(merge(merge(hash, lanes.0), lanes.1), lanes.2), lanes.3)
        } else {
            hash = seed &+ prime5
        }
        hash = hash &+ UInt64(count)
        while offset + 8 <= count {
            hash = rotate(hash ^ round(0, word(bytes, offset)), 27) &* prime1 &+ prime4
            offset += 8
        }
        if offset + 4 <= count {
            let half = UInt64(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
            hash = rotate(hash ^ (half &* prime1), 23) &* prime2 &+ prime3
            offset += 4
        }
        while offset < count {
            hash = rotate(hash ^ (UInt64(bytes[offset]) &* prime5), 11) &* prime1
            offset += 1
        }
        hash ^= hash >> 33
        hash = hash &* prime2
        hash ^= hash >> 29
        hash = hash &* prime3
        hash ^= hash >> 32
        return hash
    }

    @inline(__always)
    private static func word(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt64 {
        UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    @inline(__always)
    private static func rotate(_ value: UInt64, _ bits: UInt64) -> UInt64 {
        (value << bits) | (value >> (64 &- bits))
    }

    @inline(__always)
    private static func round(_ accumulator: UInt64, _ input: UInt64) -> UInt64 {
        rotate(accumulator &+ input &* prime2, 31) &* prime1
    }

    @inline(__always)
    private static func merge(_ accumulator: UInt64, _ lane: UInt64) -> UInt64 {
        (accumulator ^ round(0, lane)) &* prime1 &+ prime4
    }
}
