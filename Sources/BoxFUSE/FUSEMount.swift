import BoxFS
import CFuse
import Foundation
import Logging
import Synchronization

/// One libfuse session: create, mount, serve until unmounted, clean up.
///
/// `run()` blocks the calling thread in libfuse's single-threaded loop: callbacks only copy their
/// arguments and start tasks, so one thread reading /dev/fuse is enough. The loop ends when the
/// kernel ends the connection (`fusermount3 -u`, `umount`, or `unmount()` from a signal handler).
public final class FUSEMount: @unchecked Sendable {
    // @unchecked: `session` is created in init, used by `run()` on one thread, and only read by
    // `requestUnmount()`, which calls libfuse's thread-safe `fuse_session_exit` and the unmount syscall.
    public struct MountError: Error, CustomStringConvertible {
        public let description: String
    }

    private let session: OpaquePointer
    private let dispatcher: Unmanaged<FUSEDispatcher>
    private let arguments: [UnsafeMutablePointer<CChar>?]
    private let notifier: KernelNotifier
    /// Whether `requestUnmount()` detaches the mount (see `finish`).
    private let unmountRequested = Atomic<Bool>(false)
    /// The thread in `run()`'s loop while it runs (see `wakeLoop`).
    private let loopThread = Mutex<pthread_t?>(nil)
    public let mountpoint: String

    /// - Parameter options: kernel mount options (`ro`, `allow_other`, `fsname=...`, ...).
    public init(filesystem: FileSystem, mountpoint: String, options: [String], debug: Bool, logger: Logger) throws {
        self.mountpoint = mountpoint
        let dispatcher = Unmanaged.passRetained(FUSEDispatcher(filesystem: filesystem, logger: logger))
        var words = ["boxfs"]
        if !options.isEmpty { words += ["-o", options.joined(separator: ",")] }
        if debug { words.append("-d") }
        let arguments = words.map { strdup($0) } + [nil]
        // argv must stay valid for the whole call, so it gets memory of its own (not an array's temporary pointer).
        let argv = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: arguments.count)
        argv.initialize(from: arguments, count: arguments.count)
        defer { argv.deallocate() }
        var args = fuse_args(argc: Int32(words.count), argv: argv, allocated: 0)
        var ops = FUSEOperations.table()
        guard let session = boxfs_fuse_session_new(&args, &ops, MemoryLayout<fuse_lowlevel_ops>.size, dispatcher.toOpaque())
        else {
            dispatcher.release()
            arguments.forEach { free($0) }
            throw MountError(description: "libfuse rejected the mount options \(options.joined(separator: ","))")
        }
        fuse_opt_free_args(&args)
        self.session = session
        self.dispatcher = dispatcher
        self.arguments = arguments
        let notifier = KernelNotifier(session)
        self.notifier = notifier
        filesystem.setInvalidator { notifier.invalidate(inode: $0) }
        filesystem.setEntryInvalidator { notifier.invalidate(entry: $0) }
        filesystem.setKernelBarrier { notifier.afterPending($0) }
    }

    deinit {
        notifier.close()
        fuse_session_destroy(session)
        dispatcher.release()
        arguments.forEach { free($0) }
    }

    /// Asks the kernel for the mount. When this returns, the mount exists and requests queue up
    /// until `run()` serves them.
    public func mount() throws {
        // libfuse and fusermount3 say why a mount failed on stderr only (which a background daemon
        // does not have): it is caught here and becomes the mount's one-line error.
        let capture = StderrCapture()
        let result = fuse_session_mount(session, mountpoint)
        let said = capture.finish(replay: result == 0)
        guard result == 0 else {
            guard let reason = said.split(separator: "\n").last(where: { !$0.isEmpty }) else {
                throw MountError(description: "cannot mount on \(mountpoint) (is it an existing, empty folder, and is /dev/fuse usable?)")
            }
            throw MountError(description: "cannot mount on \(mountpoint): \(reason)\(Self.advice(for: String(reason)))")
        }
        // Lets the kernel stop asking for `security.capability` before every write (see the shim).
        _ = boxfs_fuse_offer_killpriv_v2(session)
    }

    /// What to do about the failures fusermount3 reports for users other than root.
    static func advice(for reason: String) -> String {
        if reason.contains("user_allow_other") {
            return " (as root, add the line user_allow_other to /etc/fuse.conf, or mount without allow_other)"
        }
        if reason.contains("/dev/fuse") {
            return " (the user needs read and write access to /dev/fuse; in a container, pass the device in)"
        }
        return ""
    }

    /// Serves requests until the filesystem is unmounted. Returns libfuse's result (0 when clean). Then call
    /// `finish(waitingUpTo:)`: tasks may still be serving requests read before the end.
    public func run() -> Int32 {
        // The thread inherits its creator's mask, and Dispatch's threads block signals.
        var wake = sigset_t()
        sigemptyset(&wake)
        sigaddset(&wake, Self.wakeSignal)
        pthread_sigmask(SIG_UNBLOCK, &wake, nil)
        loopThread.withLock { $0 = pthread_self() }
        let result = fuse_session_loop(session)
        // Under the lock `wakeLoop` signals under: no signal reaches this thread once it has left the loop.
        loopThread.withLock { $0 = nil }
        return result
    }

    /// After `run()` returned: lets the tasks serving requests read before the end answer them (a write, a
    /// release), waiting up to `timeout`, then cancels those left and waits up to 2 s more; then ends the
    /// connection (a writer still holding a file gets `ECONNABORTED`). Their answers need the connection: closed
    /// first, a late answer went to a closed descriptor, whose number another thread may have opened again.
    /// Returns whether every request was answered.
    public func finish(waitingUpTo timeout: Duration) async -> Bool {
        let interrupts = dispatcher.takeUnretainedValue().interrupts
        var answered = await interrupts.waitUntilIdle(upTo: timeout)
        if !answered {
            interrupts.cancelAll()
            answered = await interrupts.waitUntilIdle(upTo: .seconds(2))
        }
        notifier.close()
        if unmountRequested.load(ordering: .acquiring) {
            // Detached already: libfuse's unmount then fails and says so on stderr ("failed to unmount ...:
            // Invalid argument", with a file still open); what is wanted of it is the connection's end.
            let capture = StderrCapture()
            fuse_session_unmount(session)
            let said = capture.finish(replay: false).split(separator: "\n").filter { !$0.contains("failed to unmount") }
            if !said.isEmpty { FileHandle.standardError.write(Data((said.joined(separator: "\n") + "\n").utf8)) }
        } else {
            fuse_session_unmount(session)
        }
        return answered
    }

    /// Ends the session from another thread (a signal): detaches the mount, which makes the kernel
    /// end the connection once nothing is using it, and `run()` returns.
    public func requestUnmount() {
        // Before the loop can end: `finish` then knows the mount is (being) detached.
        unmountRequested.store(!mountpoint.hasPrefix("/dev/fd/"), ordering: .releasing)
        fuse_session_exit(session)
        if !mountpoint.hasPrefix("/dev/fd/") { detach() }
        wakeLoop()
    }

    private func detach() {
        if geteuid() == 0 {
            _ = umount2(mountpoint, Int32(MNT_DETACH))
        } else {
            var pid: pid_t = 0
            let words = ["fusermount3", "-u", "-z", mountpoint]
            let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
            defer { argv.forEach { free($0) } }
            if posix_spawnp(&pid, "fusermount3", nil, nil, argv, environ) == 0 { waitpid(pid, nil, 0) }
        }
    }

    /// Interrupts the loop's read of /dev/fuse until `run()` has returned. A file still open on the detached
    /// mount keeps the connection, and the loop would wait in that read for the file's next request (SIGTERM
    /// left the daemon running until the file was closed). A signal whose handler does not restart the read
    /// makes it fail with EINTR; libfuse then sees the session has ended. Sent again every 50 ms: one that
    /// arrives just before the read starts is lost.
    private func wakeLoop() {
        Self.installWakeHandler
        Thread.detachNewThread { [self] in
            while loopThread.withLock({ loop in loop.map { pthread_kill($0, Self.wakeSignal) } != nil }) {
                usleep(50_000)
            }
        }
    }

    private static let wakeSignal = SIGUSR2
    private static let installWakeHandler: Void = {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0  // no SA_RESTART
        sigaction(wakeSignal, &action, nil)
    }()
}
