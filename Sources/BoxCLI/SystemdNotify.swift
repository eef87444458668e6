import Foundation
import SystemCalls

/// systemd's readiness protocol (sd_notify(3)) without libsystemd: one datagram to the Unix socket
/// named by `$NOTIFY_SOCKET` (a path, or an abstract name written with a leading `@`). A unit with
/// `Type=notify` then counts the mount as started only once it is mounted. Without the variable this
/// does nothing.
enum SystemdNotify {
    /// Sends `state` (e.g. `READY=1\nSTATUS=...`); returns whether a datagram was sent.
    @discardableResult
    static func send(_ state: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        guard let name = environment["NOTIFY_SOCKET"], !name.isEmpty, name.hasPrefix("/") || name.hasPrefix("@") else {
            return false
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var path = Array(name.utf8)
        if path[0] == UInt8(ascii: "@") { path[0] = 0 }  // abstract namespace
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.enumerated() { buffer[index] = byte }
        }
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { Syscall.close(descriptor) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + path.count)
        let sent = state.withCString { text in
            withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                    sendto(descriptor, text, strlen(text), Int32(MSG_NOSIGNAL), socketAddress, length)
                }
            }
        }
        return sent >= 0
    }
}
