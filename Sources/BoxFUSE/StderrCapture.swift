import Foundation

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
            unlink(template)  // the name mkstemp filled in, NUL-terminated
            _ = fcntl(file, F_SETFD, FD_CLOEXEC)
        }
        saved = file >= 0 ? dup(2) : -1
        if saved >= 0 { dup2(file, 2) }
    }

    func finish(replay: Bool) -> String {
        guard saved >= 0 else { return "" }
        dup2(saved, 2)
        close(saved)
        defer { close(file) }
        var text = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        var offset: off_t = 0
        while true {
            let count = pread(file, &buffer, buffer.count, offset)
            guard count > 0 else { break }
            text.append(contentsOf: buffer[0..<count])
            offset += off_t(count)
        }
        if replay, !text.isEmpty { FileHandle.standardError.write(text) }
        return String(decoding: text, as: UTF8.self)
    }
}
