import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Temporary files and other local fixtures for the tests.
enum TestFiles {
    /// A fresh file of `size` random bytes; returns its path and contents.
    static func random(size: Int) throws -> (path: String, contents: Data) {
        let urandom = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/dev/urandom"))
        defer { try? urandom.close() }
        var contents = Data()
        while contents.count < size {
            contents.append(try urandom.read(upToCount: size - contents.count) ?? Data())
        }
        let path = temporaryPath("random")
        try contents.write(to: URL(fileURLWithPath: path))
        return (path, contents)
    }

    static func temporaryPath(_ stem: String) -> String {
        NSTemporaryDirectory() + "curlhttp-\(stem)-\(UUID().uuidString)"
    }

    static func sha1Hex(_ data: Data) -> String {
        Insecure.SHA1.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    static func remove(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// A loopback port nobody listens on: bound to learn a free number, then closed.
    static func closedPort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else { throw POSIXError(.EADDRINUSE) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
