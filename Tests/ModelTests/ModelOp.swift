import Foundation

/// Bytes a write puts down: `length` bytes drawn from a generator seeded with `seed`, so a step can be printed
/// and replayed without carrying its data.
struct Fill: Sendable, Hashable, CustomStringConvertible {
    var length: Int
    var seed: UInt32

    var bytes: [UInt8] {
        var state = UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 | 1
        // Filled in place: the in-process tier asks for a write's bytes thousands of times a second.
        return [UInt8](unsafeUninitializedCapacity: length) { buffer, count in
            for index in 0..<length {
                state ^= state << 13; state ^= state >> 7; state ^= state << 17
                buffer[index] = UInt8(truncatingIfNeeded: state)
            }
            count = length
        }
    }

    var description: String { "\(length) B #\(seed)" }
}

/// One operation of one thread, on paths relative to the thread's own folder (`tN/`). Handles live in numbered
/// slots of the thread; an operation on an empty slot (or opening a taken one) is skipped by the model and the
/// runner alike, so any subsequence of a run is still a valid run (the shrinker relies on that).
enum Op: Sendable, Hashable, CustomStringConvertible {
    /// `open(O_CREAT|O_TRUNC|O_WRONLY)`, one write, close.
    case writeFile(String, Fill)
    /// `open(O_WRONLY|O_APPEND)` of an existing file, one write, close.
    case append(String, Fill)
    /// `open` into a slot: read-write or read-only, with or without `O_CREAT`.
    case open(slot: Int, String, writable: Bool, create: Bool)
    case pwrite(slot: Int, offset: Int, Fill)
    case pread(slot: Int, offset: Int, length: Int)
    case ftruncate(slot: Int, size: Int)
    case fsync(slot: Int)
    case close(slot: Int)
    case truncate(String, size: Int)
    /// open, read to the end, close.
    case read(String)
    case stat(String)
    /// `readdir` of a folder, then `fstatat` of every entry (the sizes readdirplus handed the kernel).
    case list(String)
    case rename(String, String)
    case unlink(String)
    case mkdir(String)
    case rmdir(String)

    var description: String {
        switch self {
        case .writeFile(let path, let fill): "write-file \(path) (\(fill))"
        case .append(let path, let fill): "append \(path) (\(fill))"
        case .open(let slot, let path, let writable, let create):
            "open #\(slot) \(path) \(writable ? "rw" : "ro")\(create ? " create" : "")"
        case .pwrite(let slot, let offset, let fill): "pwrite #\(slot) @\(offset) (\(fill))"
        case .pread(let slot, let offset, let length): "pread #\(slot) @\(offset) \(length) B"
        case .ftruncate(let slot, let size): "ftruncate #\(slot) \(size)"
        case .fsync(let slot): "fsync #\(slot)"
        case .close(let slot): "close #\(slot)"
        case .truncate(let path, let size): "truncate \(path) \(size)"
        case .read(let path): "read \(path)"
        case .stat(let path): "stat \(path)"
        case .list(let path): "list \(path.isEmpty ? "." : path)"
        case .rename(let from, let to): "rename \(from) -> \(to)"
        case .unlink(let path): "unlink \(path)"
        case .mkdir(let path): "mkdir \(path)"
        case .rmdir(let path): "rmdir \(path)"
        }
    }
}

/// One step of a run: an operation of one thread, or something done to the whole mount between the threads'
/// stretches of work (every handle is closed first).
enum Step: Sendable, Hashable, CustomStringConvertible {
    case op(thread: Int, Op)
    /// Unmount (pending uploads are sent first) and mount again with the same `cache_dir`.
    case remount
    /// `kill -9` of the daemon, lazy unmount, mount again with the same `cache_dir` (the journal finishes the rest).
    case killAndRemount
    /// The network is cut: Box cannot be reached from the mount until `restore` (docs/SEMANTICS.md "Offline").
    case cut
    /// The network is back: changes made elsewhere meanwhile are reported, the queued changes go up.
    case restore
    /// Someone else changes Box, in a thread's folder (`RemoteOp`); reported to the mount at once, or once the
    /// network is restored when it is cut.
    case remote(thread: Int, RemoteOp)

    var description: String {
        switch self {
        case .op(let thread, let op): "t\(thread): \(op)"
        case .remount: "== unmount and mount again"
        case .killAndRemount: "== kill -9 the daemon and mount again"
        case .cut: "== cut the network"
        case .restore: "== restore the network"
        case .remote(let thread, let op): "t\(thread): elsewhere: \(op)"
        }
    }

    var isGlobal: Bool { if case .op = self { false } else { true } }
}

/// A change made on Box by someone else (the web app, another machine), on a path relative to a thread's folder.
/// It is made only where Box allows it (a new version of a file, a new file at a free name, a file's deletion);
/// otherwise it is skipped, so any subsequence of a run is still a valid run.
enum RemoteOp: Sendable, Hashable, CustomStringConvertible {
    /// A new version of the file at the path, or a new file there.
    case write(String, Fill)
    /// The file at the path goes to Box's trash.
    case delete(String)

    var path: String {
        switch self {
        case .write(let path, _), .delete(let path): path
        }
    }

    var description: String {
        switch self {
        case .write(let path, let fill): "write \(path) (\(fill))"
        case .delete(let path): "delete \(path)"
        }
    }
}

/// How many cuts of the network and changes made elsewhere `steps` hold (for the runs' totals).
func offlineCounts(_ steps: [Step]) -> (cuts: Int, elsewhere: Int) {
    steps.reduce((0, 0)) { counts, step in
        switch step {
        case .cut: (counts.0 + 1, counts.1)
        case .remote: (counts.0, counts.1 + 1)
        default: counts
        }
    }
}

/// Steps as a script a person can read and replay.
func script(_ steps: [Step]) -> String {
    steps.enumerated().map { "\(String(format: "%4d", $0.offset))  \($0.element)" }.joined(separator: "\n")
}
