import Foundation
import Testing

@testable import BoxAPI

extension FuzzTier {
    /// Box's RFC 3339 timestamps (`BoxDate`): every variant Box sends parses to the instant a naive
    /// reference computes; mutated text never traps and never parses to something impossible.
    @Suite struct BoxDateFuzzTests {
        static func isLeap(_ year: Int) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }

        static func daysIn(_ month: Int, _ year: Int) -> Int {
            [31, isLeap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        }

        /// Days since 1970-01-01 by counting whole years and months (slow, obviously right).
        static func referenceDays(year: Int, month: Int, day: Int) -> Int {
            var days = 0
            if year >= 1970 {
                for y in 1970..<year { days += isLeap(y) ? 366 : 365 }
            } else {
                for y in year..<1970 { days -= isLeap(y) ? 366 : 365 }
            }
            for m in 1..<month { days += daysIn(m, year) }
            return days + day - 1
        }

        static func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }

        @Test func generatedTimestampsParseToTheReferenceInstant() {
            Fuzz.run("RFC 3339 (oracle)") { random in
                let year = random.chance(0.7) ? random.int(1900...2100) : random.int(0...9999)
                let month = random.int(1...12)
                let day = random.int(1...Self.daysIn(month, year))
                let (hour, minute, second) = (random.int(0...23), random.int(0...59), random.int(0...59))
                let fractionDigits = random.chance(0.5) ? "" : String((0..<random.int(1...9)).map { _ in random.pick(Array("0123456789")) })
                let offset = random.chance(0.3) ? 0 : random.int(-23...23) * 3600 + random.int(0...59) * 60 * (random.chance(0.5) ? 1 : -1)
                var text = "\(Self.pad(year, 4))-\(Self.pad(month, 2))-\(Self.pad(day, 2))\(random.pick(["T", "t", " "]))"
                text += "\(Self.pad(hour, 2)):\(Self.pad(minute, 2)):\(Self.pad(second, 2))"
                if !fractionDigits.isEmpty { text += "." + fractionDigits }
                let magnitude = abs(offset)
                if offset == 0 && random.chance(0.7) {
                    text += random.pick(["Z", "z"])
                } else {
                    text += (offset < 0 ? "-" : "+") + Self.pad(magnitude / 3600, 2) + (random.chance(0.8) ? ":" : "")
                        + Self.pad(magnitude / 60 % 60, 2)
                }
                let whole = Self.referenceDays(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60
                    + second - offset
                let fraction = fractionDigits.isEmpty ? 0 : Double("0." + fractionDigits)!
                guard let parsed = BoxDate.parse(text) else { throw Fuzz.Failure(description: "\"\(text)\" did not parse") }
                try Fuzz.check(abs(parsed.timeIntervalSince1970 - (Double(whole) + fraction)) < 1e-3,
                               "\"\(text)\": \(parsed.timeIntervalSince1970), want \(Double(whole) + fraction)")
                // Whole seconds in UTC go back to the same text.
                if fractionDigits.isEmpty && offset == 0 && text.hasSuffix("Z") && text.contains("T") {
                    try Fuzz.check(BoxDate.format(parsed) == text, "\"\(text)\" formats back as \"\(BoxDate.format(parsed))\"")
                }
            }
        }

        @Test func mutatedTimestampsNeverTrap() {
            let seeds = ["2012-12-12T10:55:30-08:00", "2017-04-18T01:45:15Z", "2020-02-29T23:59:60.123456+05:30", "0000-01-01T00:00:00Z"]
            Fuzz.run("RFC 3339 (mutations)", iterations: 3000) { random in
                let text = random.mutate(random.pick(seeds), splices: seeds)
                guard let date = BoxDate.parse(text) else { return }
                // Years 0000...9999 with offsets of under a day: nothing else can parse.
                try Fuzz.check(date.timeIntervalSince1970.isFinite
                               && date.timeIntervalSince1970 > -62_167_219_200 - 86_400 - 1
                               && date.timeIntervalSince1970 < 253_402_300_800 + 86_400 + 1,
                               "\"\(text)\" parsed to \(date.timeIntervalSince1970)")
            }
        }
    }
}
