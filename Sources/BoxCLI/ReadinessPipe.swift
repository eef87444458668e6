import Foundation
import SystemCalls

/// The channel from the mount daemon back to the `mount.boxfs` that started it.
///
/// `fork()` is unsafe once the Swift runtime has threads, so `mount.boxfs` starts a fresh copy of
/// itself in foreground mode with a pipe on `BOXFS_READY_FD`. The daemon ends with one line: `ok` once
/// the kernel has accepted the mount, or the error that stopped it; the parent exits accordingly. Before
/// that it may send `wait: ...` lines (what a slow start is waiting for), which the parent prints.
struct ReadinessPipe: Sendable {
    static let environmentKey = "BOXFS_READY_FD"

    let descriptor: Int32

    /// The pipe this process was started with, if any (removed from the environment once read).
    static func inherited() -> ReadinessPipe? {
        guard let text = ProcessInfo.processInfo.environment[environmentKey], let fd = Int32(text), fd > 2 else { return nil }
        unsetenv(environmentKey)
        return ReadinessPipe(descriptor: fd)
    }

    func succeed() { send("ok\n") }

    func fail(_ message: String) { send("error: " + message.replacingOccurrences(of: "\n", with: " ") + "\n") }

    /// What a slow start waits for; the pipe stays open.
    func progress(_ message: String) { write("wait: " + message.replacingOccurrences(of: "\n", with: " ") + "\n") }

    private func send(_ line: String) {
        write(line)
        Syscall.close(descriptor)
    }

    private func write(_ line: String) {
        try? Syscall.writeAll(descriptor, Data(line.utf8), path: "the readiness pipe")
    }
}
