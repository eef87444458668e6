import Crypto
import Foundation
import SystemCalls

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SHA-1 of a file or of a byte range of it, read in 1 MiB pieces with `pread` so a large upload is
/// never held in memory. Box wants SHA-1 twice over: hex in `Content-MD5` on uploads (despite the
/// header's name) and base64 in `Digest: sha=` on upload-session parts and commits.
public enum FileDigest {
    static let readSize = 1 << 20

    /// The SHA-1 of `length` bytes of the file at `path` from `offset` (the whole file when `length` is nil).
    /// Throws `BoxAPIError` of kind `.transport` (not transient) when the file cannot be read or is
    /// shorter than asked.
    public static func sha1(path: String, offset: Int64 = 0, length: Int64? = nil) throws -> Digest {
        let fd: Int32
        do throws(SystemCallError) { fd = try Syscall.open(path, O_RDONLY) } catch {
            throw failure("cannot open the local file", error.errno)
        }
        defer { Syscall.close(fd) }
        var remaining: Int64
        if let length {
            remaining = length
        } else {
            do throws(SystemCallError) { remaining = try Syscall.size(fd, path: path) - offset } catch {
                throw failure("cannot stat the local file", error.errno)
            }
        }
        var hasher = Insecure.SHA1()
        var buffer = [UInt8](repeating: 0, count: readSize)
        var position = offset
        while remaining > 0 {
            let want = Int(min(Int64(readSize), remaining))
            let got: Int
            do throws(SystemCallError) {
                got = try Syscall.readFully(fd, into: &buffer, count: want, at: position, path: path)
            } catch {
                throw failure("cannot read the local file", error.errno)
            }
            guard got > 0 else { throw failure("the local file is shorter than expected", 0) }
            buffer.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[0..<got])) }
            position += Int64(got)
            remaining -= Int64(got)
        }
        return Digest(bytes: Array(hasher.finalize()))
    }

    /// The SHA-1 of bytes in memory.
    public static func sha1(_ data: Data) -> Digest {
        Digest(bytes: Array(Insecure.SHA1.hash(data: data)))
    }

    /// A SHA-1 value in the two spellings Box uses.
    public struct Digest: Sendable, Hashable, CustomStringConvertible {
        public let bytes: [UInt8]

        public init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        /// Lower-case hex, as in `File.sha1` and the `Content-MD5` upload header.
        public var hex: String {
            bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
                .joined()
        }

        /// Base64, as in `Digest: sha=<base64>`.
        public var base64: String { Data(bytes).base64EncodedString() }

        public var description: String { hex }
    }

    private static func failure(_ what: String, _ code: Int32) -> BoxAPIError {
        let reason = code == 0 ? "" : ": " + String(cString: strerror(code))
        return BoxAPIError(kind: .transport(what + reason, isTransient: false))
    }
}
