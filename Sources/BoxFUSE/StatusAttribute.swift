import BoxFS
import CFuse
import Foundation

/// The client side of the status attribute the daemon serves on the mount's root (see
/// `installAttributeOperations`): `boxfs status` reads it with getxattr(2).
public enum StatusAttribute {
    public struct ReadError: Error, CustomStringConvertible {
        public let description: String
    }

    public static func read(mountpoint: String) throws(ReadError) -> Data {
        let name = StatusReport.attributeName
        let size = getxattr(mountpoint, name, nil, 0)
        guard size >= 0 else { throw failure() }
        var buffer = [UInt8](repeating: 0, count: size + 4096)  // room in case it grew meanwhile
        let count = getxattr(mountpoint, name, &buffer, buffer.count)
        guard count >= 0 else { throw failure() }
        return Data(buffer.prefix(count))
    }

    private static func failure() -> ReadError {
        let code = errno
        if code == ENODATA || code == ENOTSUP { return ReadError(description: "not a boxfs mount") }
        return ReadError(description: String(cString: strerror(code)))
    }
}
