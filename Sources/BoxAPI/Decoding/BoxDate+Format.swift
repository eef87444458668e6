import Foundation

extension BoxDate {
    /// RFC 3339 in UTC with whole seconds (`2013-02-04T16:57:52Z`), as Box accepts for
    /// `content_modified_at` / `content_created_at`. Box keeps whole seconds only, so sub-second
    /// parts are dropped (rounded down) rather than sent and silently lost.
    static func format(_ date: Date) -> String {
        let total = Int(floor(date.timeIntervalSince1970))
        let days = Int(floor(Double(total) / 86_400))
        let secondsOfDay = total - days * 86_400
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        return String(year).leftPadded(4) + "-" + String(month).leftPadded(2) + "-" + String(day).leftPadded(2)
            + "T" + String(secondsOfDay / 3600).leftPadded(2) + ":" + String(secondsOfDay / 60 % 60).leftPadded(2)
            + ":" + String(secondsOfDay % 60).leftPadded(2) + "Z"
    }

    /// The inverse of `daysSinceEpoch`: a proleptic Gregorian (year, month, day).
    static func civilDate(daysSinceEpoch days: Int) -> (Int, Int, Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
