import BoxAPI
import Foundation

/// The names of a file's earlier versions in `versions/PATH/`: `2026-11-26T17.20.05Z alice@example.com`,
/// when the version was saved (Box's `created_at`, UTC) and who saved it (the login, else the name, else the
/// user id). `ls` shows them oldest first; the time has dots for colons so the name is safe everywhere a path
/// goes (`scp`, Samba, Windows tools). Two versions with the same name (saved in the same second by the same
/// user) are told apart by ` (2)`, ` (3)`, ... in the order Box numbered them.
enum VersionNames {
    /// `versions` without those deleted on their own (Box keeps them in the version trash), oldest first,
    /// each with its name.
    static func named(_ versions: [BoxFileVersion]) -> [(name: String, version: BoxFileVersion)] {
        let ordered = versions.filter { $0.trashedAt == nil }.sorted(by: isOlder)
        var taken: [String: Int] = [:]
        return ordered.map { version in
            let base = name(of: version)
            let count = (taken[base] ?? 0) + 1
            taken[base] = count
            return (count == 1 ? base : "\(base) (\(count))", version)
        }
    }

    static func name(of version: BoxFileVersion) -> String {
        let who = version.modifiedBy.map { $0.login ?? $0.name ?? "user \($0.id)" } ?? "unknown"
        return timestamp(version.createdAt ?? version.modifiedAt) + " " + safe(who)
    }

    /// `2026-11-26T17.20.05Z`; `0000-00-00T00.00.00Z` when Box gave no time.
    static func timestamp(_ date: Date?) -> String {
        guard let date else { return "0000-00-00T00.00.00Z" }
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(
            format: "%04d-%02d-%02dT%02d.%02d.%02dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
            Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
    }

    /// No `/` or NUL in a name; nor an empty one.
    private static func safe(_ text: String) -> String {
        let cleaned = String(text.map { $0 == "/" || $0 == "\0" ? "_" : $0 })
        return cleaned.isEmpty ? "unknown" : cleaned
    }

    private static func isOlder(_ a: BoxFileVersion, _ b: BoxFileVersion) -> Bool {
        let (ta, tb) = (a.createdAt ?? a.modifiedAt ?? .distantPast, b.createdAt ?? b.modifiedAt ?? .distantPast)
        if ta != tb { return ta < tb }
        let (na, nb) = (Int(a.versionNumber ?? "") ?? 0, Int(b.versionNumber ?? "") ?? 0)
        if na != nb { return na < nb }
        return (Int(a.id) ?? 0, a.id) < (Int(b.id) ?? 0, b.id)
    }
}
