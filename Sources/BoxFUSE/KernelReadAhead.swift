import Foundation

/// Raises the kernel's read-ahead for one mount (its backing device's `read_ahead_kb`).
///
/// The kernel gives FUSE mounts 128 KiB, which caps streaming reads well below what the read path
/// can deliver (PERFORMANCE.md: 2.1–2.6 GiB/s at 128 KiB, 3.6 at 1 MiB). Only root may write the
/// setting, and a filesystem cannot set it from `init`, so it is written after the mount exists.
/// The device is found in /proc/self/mountinfo, without touching the mount itself.
public enum KernelReadAhead {
    /// Sets `kilobytes` of read-ahead on the mount at `mountpoint`; returns the read-ahead the
    /// kernel then reports (it keeps FUSE mounts at no more than 1024 KiB, whatever is asked), or
    /// nil if it could not be set.
    @discardableResult
    public static func set(kilobytes: Int, mountpoint: String) -> Int? {
        guard let device = device(of: mountpoint) else { return nil }
        let path = "/sys/class/bdi/\(device)/read_ahead_kb"
        guard let handle = FileHandle(forWritingAtPath: path) else { return nil }
        let written = (try? handle.write(contentsOf: Data("\(kilobytes)\n".utf8))) != nil
        try? handle.close()
        guard written, let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// "major:minor" of the filesystem mounted at `mountpoint` (the last such mount).
    static func device(of mountpoint: String) -> String? {
        guard let table = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8) else { return nil }
        // Fields: id parent major:minor root mountpoint ...; spaces in paths are escaped as \040.
        let escaped = mountpoint.replacingOccurrences(of: " ", with: "\\040")
        for line in table.split(separator: "\n").reversed() {
            let fields = line.split(separator: " ")
            if fields.count > 4, fields[4] == escaped { return String(fields[2]) }
        }
        return nil
    }
}
