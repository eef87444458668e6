import Foundation
import SystemCalls

/// Points file descriptor 2 at an anonymous temp file for a moment (the kernel mount, whose helper
/// fusermount3 writes its reasons there), then puts the real stderr back and returns what was said.
/// Used before the mount serves anything and after it stopped, so little else writes to stderr meanwhile;
/// the caller replays what was written that it did not expect.
struct StderrCapture {
    private let saved: Int32
    private let file: Int32

    init() {
        var template = Array("/tmp/boxfs-mount-XXXXXX".utf8CString)
        file = mkstemp(&template)
        if file >= 0 {
            try? Syscall.unlink(String(cString: template))
            _ = fcntl(file, F_SETFD, FD_CLOEXEC)
        }
        saved = file >= 0 ? dup(2) : -1
        if saved >= 0 { dup2(file, 2) }
    }

    func finish(replay: Bool) -> String {
        guard saved >= 0 else { return "" }
        dup2(saved, 2)
        Syscall.close(saved)
        defer { Syscall.close(file) }
        let size = (try? Syscall.size(file, path: "the captured stderr")) ?? 0
        let text = (try? Syscall.read(file, count: Int(size), at: 0, path: "the captured stderr")) ?? Data()
        if replay, !text.isEmpty { FileHandle.standardError.write(text) }
        return String(decoding: text, as: UTF8.self)
    }
}
