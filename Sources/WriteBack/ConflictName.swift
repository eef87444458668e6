import Foundation

/// Names for conflicted copies: `NAME (conflict YYYY-MM-DD HHMMSS).EXT`, in UTC so that two machines
/// name the same moment alike. `attempt` > 1 (the name itself was taken) adds ` N` before the `)`.
public enum ConflictName {
    public static func make(from name: String, at date: Date, attempt: Int = 1) -> String {
        let (stem, ext) = split(name)
        var stamp = "conflict " + timestamp(date)
        if attempt > 1 { stamp += " \(attempt)" }
        let candidate = "\(stem) (\(stamp))\(ext)"
        guard candidate.utf8.count > 255 else { return candidate }
        // Box allows 255 bytes: shorten the stem, never the stamp or the extension.
        let room = 255 - (candidate.utf8.count - stem.utf8.count)
        var short = ""
        for character in stem where short.utf8.count + String(character).utf8.count <= room {
            short.append(character)
        }
        return "\(short) (\(stamp))\(ext)"
    }

    /// `report.final.txt` → (`report.final`, `.txt`); `.bashrc` and `README` have no extension.
    static func split(_ name: String) -> (String, String) {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (name, "") }
        let ext = name[dot...]
        guard ext.count > 1, ext.count <= 16, !ext.contains(" ") else { return (name, "") }
        return (String(name[..<dot]), String(ext))
    }

    /// `2026-11-22 140718` (UTC).
    static func timestamp(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String { String(format: "%02d", value ?? 0) }
        return String(format: "%04d", c.year ?? 0) + "-" + two(c.month) + "-" + two(c.day) + " "
            + two(c.hour) + two(c.minute) + two(c.second)
    }
}
