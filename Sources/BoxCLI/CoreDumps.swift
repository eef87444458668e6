import Foundation

/// The daemon holds access and refresh tokens in memory; a core file would write them to disk.
enum CoreDumps {
    /// Sets this process's core-file size limit to zero (soft and hard), so a crash leaves no core.
    static func disable() {
        var none = rlimit(rlim_cur: 0, rlim_max: 0)
        _ = setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &none)
    }
}
