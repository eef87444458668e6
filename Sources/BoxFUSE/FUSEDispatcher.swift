import BoxFS
import CFuse
import Foundation
import Logging
import Synchronization

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
            Self.note(error, of: operation, logger: logger)
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
                Self.note(error, of: operation, logger: logger)
                request.error(error.errno)
            }
            interrupts.finish(id)
        }
        interrupts.attach(id, task, answersAtOnce: answering)
    }

    /// Logs an error answered to the kernel. Most are what the caller asked about (ENOENT, EEXIST, ENOTEMPTY,
    /// an interrupt) and stay at debug level; EIO says only that something failed, so its cause is logged
    /// where the user looks (the tool that got it prints only "Input/output error"), at most once every
    /// 10 s per operation (an outage fails every read; the count of the others follows).
    static func note(_ error: FSError, of operation: StaticString, logger: Logger) {
        switch error.errno {
        case ENOENT: logger.debug("\(operation): \(error)")  // which name, and whether an inode was gone
        case EINTR: logger.debug("\(operation): interrupted")
        case EIO:
            let now = ContinuousClock.now, name = "\(operation)"
            let quiet = eioLogged.withLock { logged -> Int? in
                if let last = logged[name], now - last.at < .seconds(10) {
                    logged[name]?.skipped += 1
                    return nil
                }
                defer { logged[name] = (now, 0) }
                return logged[name]?.skipped ?? 0
            }
            guard let quiet else { logger.debug("\(operation): \(error)"); return }
            let more = quiet > 0 ? " (and \(quiet) more since the last such line)" : ""
            logger.warning("\(operation) failed with EIO: \(error)\(more)")
        default: logger.debug("\(operation): \(error)")
        }
    }

    /// When each operation's last EIO was logged, and how many went unlogged since.
    private static let eioLogged = Mutex<[String: (at: ContinuousClock.Instant, skipped: Int)]>([:])
}
