import BoxFS
import CFuse
import Foundation
import Logging

/// What every callback needs: the filesystem, the interrupt registry, the log.
///
/// Reached from C callbacks through the session's userdata pointer. Each callback copies its
/// arguments (names and `fuse_file_info` do not outlive the callback), then `serve` starts a task
/// that replies; the FUSE thread never waits on the network.
final class FUSEDispatcher: Sendable {
    let filesystem: FileSystem
    let logger: Logger
    let interrupts = InterruptRegistry()

    init(filesystem: FileSystem, logger: Logger) {
        self.filesystem = filesystem
        self.logger = logger
    }

    static func from(_ request: fuse_req_t?) -> FUSEDispatcher {
        Unmanaged<FUSEDispatcher>.fromOpaque(fuse_req_userdata(request)!).takeUnretainedValue()
    }

    /// Serves a request that needs neither the network nor a wait on this, the session's thread: no
    /// task and no interrupt registration (it is answered before an interrupt could matter). For the
    /// requests `ls -l` and `find` send by the thousand (getattr, a lookup in a fresh listing), a
    /// task's hand-over would cost more than the answer.
    func serveNow(_ raw: fuse_req_t?, _ operation: StaticString,
                  _ work: (FUSERequest, FileSystem) throws(FSError) -> Void) {
        _ = answerNow(raw, operation) { request, filesystem throws(FSError) -> Bool in
            try work(request, filesystem)
            return true
        }
    }

    /// Like `serveNow`, for a request that can only sometimes be answered at once: `work` returns false
    /// without replying when it cannot, and so does this (the caller then `serve`s it in a task).
    func answerNow(_ raw: fuse_req_t?, _ operation: StaticString,
                   _ work: (FUSERequest, FileSystem) throws(FSError) -> Bool) -> Bool {
        guard let raw else { return true }
        let request = FUSERequest(raw)
        do throws(FSError) {
            if try work(request, filesystem) { return true }
            request.handOver()
            return false
        } catch {
            if error.errno != ENOENT { logger.debug("\(operation): \(error)") }
            request.error(error.errno)
            return true
        }
    }

    /// Serves one request in a task. Errors thrown by `work` become the reply's errno. A FUSE interrupt
    /// cancels the task (a cancelled wait answers EINTR); with `answersInterruptAtOnce` (requests that
    /// change nothing) the interrupt is also answered EINTR at once, and `work`'s own reply is dropped.
    func serve(
        _ raw: fuse_req_t?, _ operation: StaticString, answersInterruptAtOnce: Bool = false,
        _ work: @escaping @Sendable (FUSERequest, FileSystem) async throws(FSError) -> Void
    ) {
        guard let raw else { return }
        let request = FUSERequest(raw)
        let answering = answersInterruptAtOnce ? request : nil
        let id = interrupts.reserve(answersAtOnce: answering)
        fuse_req_interrupt_func(raw, { request, data in
            guard let request, let data else { return }
            FUSEDispatcher.from(request).interrupts.interrupt(UInt(bitPattern: data))
        }, UnsafeMutableRawPointer(bitPattern: id))
        let logger = self.logger, interrupts = self.interrupts, filesystem = self.filesystem
        let task = Task {
            do throws(FSError) {
                try await work(request, filesystem)
            } catch {
                if error.errno == EINTR {
                    logger.debug("\(operation): interrupted")
                } else if error.errno != ENOENT {
                    logger.debug("\(operation): \(error)")
                }
                request.error(error.errno)
            }
            interrupts.finish(id)
        }
        interrupts.attach(id, task, answersAtOnce: answering)
    }
}
