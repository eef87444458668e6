import BoxAPI
import BoxFS
import Foundation
import Logging
import WriteBack

/// Builds the write side of a read-write mount: the journal and staging folder under
/// `<cache_dir>/<account>/writeback-<mounted folder id>/`, guarded by a lock so that two daemons
/// never send the same journal (the next mount of a folder whose previous daemon is still
/// finishing its uploads waits for it).
enum WriteBackSetup {
    static func make(
        options: MountOptions, endpoint: String, userID: String, rootID: String, client: BoxClient, logger: Logger
    ) async throws -> WriteBackContext {
        let account = CacheLocation.accountDirectory(options: options, endpoint: endpoint, userID: userID)
        let directory = account.appendingPathComponent("writeback-\(rootID)")
        let staging = directory.appendingPathComponent("staging")
        do {
            try FileManager.default.createDirectory(
                at: staging, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw StartupError(description: "cannot create the write-back folder \(directory.path): \(error.localizedDescription)")
        }
        try await StateLock.acquire(in: directory, waitingUpTo: options.uploadWait + 10, logger: logger)
        let journal = try UploadJournal(directory: directory)
        let configuration = UploaderConfiguration(writeBackDelay: options.writeBackDelay)
        let uploader = Uploader(journal: journal, client: client, configuration: configuration, logger: logger)
        return WriteBackContext(journal: journal, uploader: uploader, stagingDirectory: staging)
    }
}

/// An exclusive `flock` on `DIR/lock`, held for the life of the process (the kernel releases it
/// when the process ends, however it ends).
enum StateLock {
    static func acquire(in directory: URL, waitingUpTo seconds: Double, logger: Logger) async throws {
        let path = directory.appendingPathComponent("lock").path
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw StartupError(description: "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        let deadline = Date().addingTimeInterval(seconds)
        var warned = false
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let holder = (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
            guard Date() < deadline else {
                close(descriptor)
                throw StartupError(description: """
                    another boxfs process (pid \(holder ?? "?")) is using \(directory.path); \
                    unmount that mount or let it finish its uploads first
                    """)
            }
            if !warned {
                logger.notice("waiting for boxfs process \(holder ?? "?") to finish its uploads")
                warned = true
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        ftruncate(descriptor, 0)
        let pid = "\(getpid())\n"
        _ = pid.withCString { write(descriptor, $0, strlen($0)) }
        // The descriptor stays open on purpose: closing it would release the lock.
    }
}
