import BoxAPI
import BoxFS
import Foundation
import SystemCalls
import Logging
import WriteBack

/// Builds the write side of a read-write mount: the journal and staging folder under
/// `<cache_dir>/<account>/writeback-<mounted folder id>/`, guarded by a lock so that two daemons
/// never send the same journal (the next mount of a folder whose previous daemon is still
/// finishing its uploads waits for it).
enum WriteBackSetup {
    static func make(
        options: MountOptions, endpoint: String, userID: String, rootID: String, client: BoxClient, logger: Logger
    ) async throws -> (WriteBackContext, StateLock) {
        let account = CacheLocation.accountDirectory(options: options, endpoint: endpoint, userID: userID)
        let directory = account.appendingPathComponent("writeback-\(rootID)")
        let staging = directory.appendingPathComponent("staging")
        do {
            try FileManager.default.createDirectory(
                at: staging, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw StartupError(description: "cannot create the write-back folder \(directory.path): \(error.localizedDescription)")
        }
        let lock = try await StateLock.acquire(in: directory, waitingUpTo: options.uploadWait + 10, logger: logger)
        // Opening the journal migrates and prunes it (synced writes): off Swift's cooperative pool.
        let journal = try await Syscall.offThePool { () throws in try UploadJournal(directory: directory) }
        let configuration = UploaderConfiguration(writeBackDelay: options.writeBackDelay)
        let recovery = RecoveryPlace(directory: recoveryDirectory(account: account, rootID: rootID))
        let uploader = Uploader(
            journal: journal, client: client, configuration: configuration, logger: logger, recovery: recovery)
        // Uploads that failed while Box was out of reach wait out their backoff (up to 5 minutes): once Box answers
        // again (noticed by any call, the event stream's retries among them) they are tried at once, in order.
        client.connectivity.whenReachedAgain { Task { _ = await uploader.retryNow() } }
        return (WriteBackContext(journal: journal, uploader: uploader, stagingDirectory: staging, recovery: recovery), lock)
    }

    /// `<cache_dir>/<account>/recovered/<mounted folder id>/`: where content whose folder was deleted on Box is
    /// kept, at its path below the mount (docs/CONFIGURATION.md, `cache_dir`).
    static func recoveryDirectory(account: URL, rootID: String) -> URL {
        account.appendingPathComponent("recovered").appendingPathComponent(rootID)
    }

    /// Finishes what earlier mounts of *other* folders of this account left journaled, when no
    /// daemon holds them: a pending upload names its Box folder by id, so it can go up from any
    /// mount of the account. Each journal is let go (its lock released) once it is empty. Opens and reads the
    /// journals (SQLite): call it off Swift's cooperative pool.
    static func adoptOrphans(
        options: MountOptions, endpoint: String, userID: String, ownRootID: String, client: BoxClient, logger: Logger
    ) -> [AdoptedJournal] {
        let account = CacheLocation.accountDirectory(options: options, endpoint: endpoint, userID: userID)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: account.path)) ?? []
        return names.filter { $0.hasPrefix("writeback-") && $0 != "writeback-\(ownRootID)" }.compactMap { name in
            let directory = account.appendingPathComponent(name)
            guard let lock = StateLock.tryAcquire(in: directory) else { return nil }
            guard let journal = try? UploadJournal(directory: directory), let pending = try? journal.pending(),
                !pending.isEmpty
            else {
                lock.release()
                return nil
            }
            lock.say("finishing")
            let rootID = String(name.dropFirst("writeback-".count))
            let uploader = Uploader(
                journal: journal, client: client, configuration: UploaderConfiguration(writeBackDelay: 0), logger: logger,
                recovery: RecoveryPlace(directory: recoveryDirectory(account: account, rootID: rootID)))
            logger.notice("finishing \(pending.count) upload(s) left journaled by an earlier mount (\(name))")
            return AdoptedJournal(uploader: uploader, lock: lock)
        }
    }
}

/// Another folder's journal this daemon finishes.
struct AdoptedJournal: Sendable {
    let uploader: Uploader
    let lock: StateLock

    /// Sends everything, then lets the journal go; ends early (entries stay journaled) at `shutdown`.
    func run() async {
        _ = try? await uploader.start()
        while await uploader.status().pendingCount > 0 {
            try? await Task.sleep(for: .seconds(1))
            if Task.isCancelled { return }
        }
        await uploader.shutdown()
        lock.release()
    }
}

/// An exclusive `flock` on `DIR/lock`, held for the life of the process (the kernel releases it
/// when the process ends, however it ends). The file says who holds it and why, so the next mount
/// can tell a second mount of the same folder (refused at once) from a daemon that is unmounted
/// and finishing its uploads (waited for).
final class StateLock: Sendable {
    private let descriptor: Int32
    let path: String

    private init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    static func acquire(in directory: URL, waitingUpTo seconds: Double, logger: Logger) async throws -> StateLock {
        let path = directory.appendingPathComponent("lock").path
        let descriptor: Int32
        do throws(SystemCallError) { descriptor = try Syscall.open(path, O_RDWR | O_CREAT) } catch {
            throw StartupError(description: "cannot open \(path): \(error.reason)")
        }
        let deadline = Date().addingTimeInterval(seconds)
        var warned = false
        while !((try? Syscall.lockExclusively(descriptor, path: path)) ?? false) {
            let holder = ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "")
                .trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ", maxSplits: 2).map(String.init)
            let pid = holder.first ?? "?"
            if holder.count > 2, holder[1] == "mounted" {
                Syscall.close(descriptor)
                throw StartupError(description: """
                    this Box folder is already mounted read-write at \(holder[2]) (pid \(pid)) with the same \
                    cache_dir; unmount it, mount with -o ro, or give this mount another cache_dir
                    """)
            }
            guard Date() < deadline else {
                Syscall.close(descriptor)
                throw StartupError(description: """
                    boxfs process \(pid) is still finishing uploads from \(directory.path); try again later
                    """)
            }
            if !warned {
                logger.notice("waiting for boxfs process \(pid) to finish its uploads")
                warned = true
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        let lock = StateLock(descriptor: descriptor, path: path)
        lock.say("starting")
        return lock
    }

    /// The lock if nobody holds it now, without waiting.
    static func tryAcquire(in directory: URL) -> StateLock? {
        let path = directory.appendingPathComponent("lock").path
        guard let descriptor = try? Syscall.open(path, O_RDWR | O_CREAT) else { return nil }
        guard (try? Syscall.lockExclusively(descriptor, path: path)) == true else {
            Syscall.close(descriptor)
            return nil
        }
        return StateLock(descriptor: descriptor, path: path)
    }

    /// Lets the lock go (only for a journal this process no longer uses).
    func release() {
        try? Syscall.truncate(descriptor, to: 0, path: path)
        Syscall.close(descriptor)
    }

    /// Records what this process is doing: `mounted MOUNTPOINT`, `finishing`.
    func say(_ state: String) {
        let line = "\(getpid()) \(state)\n"
        try? Syscall.truncate(descriptor, to: 0, path: path)
        try? Syscall.writeAll(descriptor, Data(line.utf8), at: 0, path: path)
    }
    // The descriptor is otherwise never closed: closing it would release the lock.
}
