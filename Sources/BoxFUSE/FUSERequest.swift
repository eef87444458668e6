import BoxFS
import CFuse
import Foundation
import Logging
import Synchronization

/// One kernel request that must be answered exactly once, from any thread.
///
/// libfuse lets a low-level callback return before it replies; this wrapper carries the request
/// into a task. Replying twice is impossible (the second reply is dropped), and a request dropped
/// unanswered is answered with EIO in `deinit`, so a caller can never hang on a lost reply.
final class FUSERequest: @unchecked Sendable {
    // @unchecked: `request` is an opaque libfuse handle that libfuse allows replying to from any
    // thread; `answered` guarantees it is used for exactly one reply and never after.
    private let request: fuse_req_t
    private let answered = Atomic<Bool>(false)

    init(_ request: fuse_req_t) {
        self.request = request
    }

    deinit {
        guard !answered.load(ordering: .acquiring) else { return }
        fuse_reply_err(request, FSError.Kind.io.errno)
        Self.logger.error("a request was left unanswered; answered EIO")
    }

    /// Only for the reply a bug left out (see `deinit`).
    private static let logger = Logger(label: "boxfs.fuse")

    /// Runs `reply` with the raw request if nobody has replied yet.
    private func once(_ reply: (fuse_req_t) -> Void) {
        guard answered.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        reply(request)
    }

    func error(_ errno: Int32) { once { _ = fuse_reply_err($0, errno) } }

    /// Gives up this wrapper's duty to reply, without replying: another `FUSERequest` of the same
    /// kernel request (made by `FUSEDispatcher.serve`) answers it.
    func handOver() { _ = answered.exchange(true, ordering: .acquiringAndReleasing) }

    /// Like `open`: false if the reply was not delivered (answered already, e.g. EINTR after an
    /// interrupt, or refused by the kernel), so the kernel counts no lookup of the entry.
    @discardableResult
    func entry(_ entry: fuse_entry_param) -> Bool {
        var entry = entry, delivered = false
        once { delivered = fuse_reply_entry($0, &entry) == 0 }
        return delivered
    }

    func attributes(_ attributes: stat, timeout: Double) {
        var attributes = attributes
        once { _ = fuse_reply_attr($0, &attributes, timeout) }
    }

    /// Returns false if the kernel did not take the reply (the caller was interrupted by a fatal
    /// signal meanwhile): then no `release` will follow, and the handle must be released here.
    @discardableResult
    func open(_ info: fuse_file_info) -> Bool {
        var info = info, delivered = false
        once { delivered = fuse_reply_open($0, &info) == 0 }
        return delivered
    }

    /// Like `open`: false if the kernel did not take the reply (no lookup and no release follow).
    @discardableResult
    func created(_ entry: fuse_entry_param, _ info: fuse_file_info) -> Bool {
        var entry = entry, info = info, delivered = false
        once { delivered = fuse_reply_create($0, &entry, &info) == 0 }
        return delivered
    }

    func link(_ target: String) { once { request in _ = target.withCString { fuse_reply_readlink(request, $0) } } }

    func written(_ count: Int) { once { _ = fuse_reply_write($0, count) } }

    /// The size of an extended attribute (a `getxattr` that asked for the size only).
    func xattrSize(_ count: Int) { once { _ = fuse_reply_xattr($0, count) } }

    /// An extended attribute's value or a list of names, for a caller with a buffer of `size` bytes:
    /// the size alone when `size` is 0, ERANGE when it does not fit.
    func xattr(_ value: [UInt8], size: Int) throws(FSError) {
        if size == 0 { return xattrSize(value.count) }
        guard value.count <= size else { throw FSError(.bufferTooSmall, "an attribute of \(value.count) bytes for \(size)") }
        once { request in
            _ = value.withUnsafeBytes { bytes in
                fuse_reply_buf(request, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count)
            }
        }
    }

    func buffer(_ data: Data) {
        once { request in
            _ = data.withUnsafeBytes { bytes in
                fuse_reply_buf(request, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count)
            }
        }
    }

    func bytes(_ bytes: [CChar], count: Int) {
        once { request in _ = bytes.withUnsafeBufferPointer { fuse_reply_buf(request, $0.baseAddress, count) } }
    }

    func statfs(_ statistics: statvfs) {
        var statistics = statistics
        once { _ = fuse_reply_statfs($0, &statistics) }
    }

    func none() { once { fuse_reply_none($0) } }

    /// The raw handle for building a reply buffer (`fuse_add_direntry*`), which needs it but does not reply.
    func withRawRequest<T>(_ body: (fuse_req_t) -> T) -> T { body(request) }
}
