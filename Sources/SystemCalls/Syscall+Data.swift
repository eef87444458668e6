import Foundation

/// The transfers of `Syscall+Transfers` for `Data`, keeping the typed error.
extension Syscall {
    /// Up to `count` bytes from `offset`, fewer only where the file ends.
    public static func read(_ descriptor: Int32, count: Int, at offset: Int64, path: String) throws(SystemCallError) -> Data {
        var data = Data(count: count)
        let result = data.withUnsafeMutableBytes { buffer in
            Result { () throws(SystemCallError) in try readFully(descriptor, into: buffer, at: offset, path: path) }
        }
        data.count = try result.get()
        return data
    }

    /// Writes all of `data` at `offset`.
    public static func writeAll(_ descriptor: Int32, _ data: Data, at offset: Int64, path: String) throws(SystemCallError) {
        try data.withUnsafeBytes { buffer in
            Result { () throws(SystemCallError) in try writeAll(descriptor, buffer, at: offset, path: path) }
        }.get()
    }

    /// Writes all of `data` at the descriptor's position.
    public static func writeAll(_ descriptor: Int32, _ data: Data, path: String) throws(SystemCallError) {
        try data.withUnsafeBytes { buffer in
            Result { () throws(SystemCallError) in try writeAll(descriptor, buffer, path: path) }
        }.get()
    }
}

/// The same for a reused `[UInt8]` buffer (`Array.withUnsafeMutableBytes` would lose the typed error).
extension Syscall {
    /// One `read` of what is there into `bytes`, `EINTR` retried (see `readSome(_:into:path:)`).
    public static func readSome(_ descriptor: Int32, into bytes: inout [UInt8], path: String) throws(SystemCallError) -> Int {
        try bytes.withUnsafeMutableBytes { buffer in
            Result { () throws(SystemCallError) in try readSome(descriptor, into: buffer, path: path) }
        }.get()
    }

    /// `read` into the first `count` bytes of `bytes` until they are full or the end (see `readFully(_:into:path:)`).
    public static func readFully(
        _ descriptor: Int32, into bytes: inout [UInt8], count: Int, path: String
    ) throws(SystemCallError) -> Int {
        try bytes.withUnsafeMutableBytes { buffer in
            Result { () throws(SystemCallError) in
                try readFully(descriptor, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count]), path: path)
            }
        }.get()
    }

    /// `pread` into the first `count` bytes of `bytes` until they are full or the file ends.
    public static func readFully(
        _ descriptor: Int32, into bytes: inout [UInt8], count: Int, at offset: Int64, path: String
    ) throws(SystemCallError) -> Int {
        try bytes.withUnsafeMutableBytes { buffer in
            Result { () throws(SystemCallError) in
                try readFully(descriptor, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count]), at: offset, path: path)
            }
        }.get()
    }
}
