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

    /// Serves one request in a task. Errors thrown by `work` become the reply's errno.
    func serve(
        _ raw: fuse_req_t?, _ operation: StaticString,
        _ work: @escaping @Sendable (FUSERequest, FileSystem) async throws(FSError) -> Void
    ) {
        guard let raw else { return }
        let request = FUSERequest(raw)
        let id = interrupts.reserve()
        fuse_req_interrupt_func(raw, { request, data in
            guard let request, let data else { return }
            FUSEDispatcher.from(request).interrupts.interrupt(UInt(bitPattern: data))
        }, UnsafeMutableRawPointer(bitPattern: id))
        let logger = self.logger, interrupts = self.interrupts, filesystem = self.filesystem
        let task = Task {
            do throws(FSError) {
                try await work(request, filesystem)
            } catch {
                if error.errno != ENOENT { logger.debug("\(operation): \(error)") }
                request.error(error.errno)
            }
            interrupts.finish(id)
        }
        interrupts.attach(id, task)
    }
}
