import Foundation
import Glibc
import Synchronization

/// A TCP proxy on loopback in front of a server (boxsim), which a test cuts and restores: while cut nothing listens
/// at its port, so a connection is refused, as when Box cannot be reached (libcurl's `CURLE_COULDNT_CONNECT`), and
/// the connections it carried are closed; restored, it listens again at the same port. A mount given the proxy's
/// URL as its endpoint loses Box while the test's own calls to the server go on. boxsim builds the URLs it hands out
/// (downloads, the long poll's server) from the host the client used, so they go through the proxy too.
public final class CuttableProxy: Sendable {
    public let port: UInt16
    private let target: UInt16
    private let state = Mutex(State())

    private struct State {
        var listener: Int32 = -1
        /// The accepting thread has not yet closed the listener.
        var listening = false
        /// Not cut: a connection accepted now is carried (one accepted as the cut comes is closed at once).
        var carrying = false
        /// Both ends of every connection carried, so a cut closes them.
        var connections: Set<Int32> = []
    }

    /// Listens on a free port of 127.0.0.1, passing each connection to `targetPort` there.
    public init(targetPort: UInt16) throws {
        target = targetPort
        let listener = try Self.listen(port: 0)
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        accept(on: listener)
    }

    /// The proxy for `sim`: its URL (`baseURL`) stands for boxsim's.
    public convenience init(_ sim: BoxSimProcess) throws {
        guard let port = URLComponents(string: sim.baseURL)?.port else {
            throw ProxyError(description: "no port in \(sim.baseURL)")
        }
        try self.init(targetPort: UInt16(port))
    }

    public var baseURL: String { "http://127.0.0.1:\(port)" }

    public var isCut: Bool { state.withLock { !$0.carrying } }

    /// Stops listening (a connection is then refused) and closes every connection carried.
    public func cut() {
        let (listener, connections) = state.withLock { state in
            defer {
                state.connections = []
                state.carrying = false
            }
            return (state.listener, state.connections)
        }
        // The accepting thread closes the listener once its accept fails: it never accepts on a number reused since.
        if listener >= 0 { shutdown(listener, Int32(SHUT_RDWR)) }
        for descriptor in connections { shutdown(descriptor, Int32(SHUT_RDWR)) }
        let deadline = Date().addingTimeInterval(5)
        while state.withLock({ $0.listening }), Date() < deadline { usleep(1000) }
    }

    /// Listens again at the same port.
    public func restore() throws {
        guard isCut, !state.withLock({ $0.listening }) else { return }
        accept(on: try Self.listen(port: port))
    }

    /// Cuts for good (at the end of a test).
    public func stop() { cut() }

    struct ProxyError: Error, CustomStringConvertible { let description: String }

    private static func listen(port: UInt16) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw ProxyError(description: "socket: errno \(errno)") }
        var one: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, Glibc.listen(descriptor, 128) == 0 else {
            let code = errno
            close(descriptor)
            throw ProxyError(description: "listening on 127.0.0.1:\(port): errno \(code)")
        }
        return descriptor
    }

    private func accept(on listener: Int32) {
        state.withLock { state in
            state.listener = listener
            state.listening = true
            state.carrying = true
        }
        Thread.detachNewThread { [self] in
            while true {
                let client = Glibc.accept(listener, nil, nil)
                if client < 0 {
                    if errno == EINTR { continue }
                    break
                }
                _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                guard let upstream = connectToTarget() else {
                    close(client)
                    continue
                }
                carry(client, upstream)
            }
            close(listener)
            state.withLock { state in
                if state.listener == listener {
                    state.listener = -1
                    state.listening = false
                }
            }
        }
    }

    private func connectToTarget() -> Int32? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = target.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(descriptor)
            return nil
        }
        return descriptor
    }

    /// Two threads copy bytes each way until either side ends; then both ends are closed.
    private func carry(_ client: Int32, _ upstream: Int32) {
        let open = state.withLock { state -> Bool in
            guard state.carrying else { return false }
            state.connections.formUnion([client, upstream])
            return true
        }
        guard open else {
            close(client)
            close(upstream)
            return
        }
        let ends = Atomic<Int>(0)
        let finish: @Sendable () -> Void = { [self] in
            shutdown(client, Int32(SHUT_RDWR))
            shutdown(upstream, Int32(SHUT_RDWR))
            guard ends.add(1, ordering: .acquiringAndReleasing).newValue == 2 else { return }
            state.withLock { state in
                state.connections.remove(client)
                state.connections.remove(upstream)
            }
            close(client)
            close(upstream)
        }
        Thread.detachNewThread { Self.copy(from: client, to: upstream); finish() }
        Thread.detachNewThread { Self.copy(from: upstream, to: client); finish() }
    }

    private static func copy(from source: Int32, to destination: Int32) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(source, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return }
            var sent = 0
            while sent < count {
                let written = buffer.withUnsafeBytes { send(destination, $0.baseAddress! + sent, count - sent, Int32(MSG_NOSIGNAL)) }
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return }
                sent += written
            }
        }
    }
}
