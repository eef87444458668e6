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
        if let temporary = try? Syscall.makeTemporaryFile("/tmp/boxfs-mount-XXXXXX") {
            file = temporary.descriptor
            try? Syscall.unlink(temporary.path)
            try? Syscall.setCloseOnExec(file, path: temporary.path)
        } else {
            file = -1
        }
        saved = file >= 0 ? (try? Syscall.duplicate(2, path: "stderr")) ?? -1 : -1
        if saved >= 0 { try? Syscall.duplicate(file, onto: 2, path: "stderr") }
    }

    func finish(replay: Bool) -> String {
        guard saved >= 0 else { return "" }
        try? Syscall.duplicate(saved, onto: 2, path: "stderr")
        Syscall.close(saved)
        defer { Syscall.close(file) }
        let size = (try? Syscall.size(file, path: "the captured stderr")) ?? 0
        let text = (try? Syscall.read(file, count: Int(size), at: 0, path: "the captured stderr")) ?? Data()
        if replay, !text.isEmpty { FileHandle.standardError.write(text) }
        return String(decoding: text, as: UTF8.self)
    }
}
