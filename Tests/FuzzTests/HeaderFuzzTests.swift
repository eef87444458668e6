import CurlHTTP
import Foundation
import Testing

@testable import BoxAuth

extension FuzzTier {
    /// The `Retry-After` and `WWW-Authenticate: Bearer` header parsers.
    @Suite struct HeaderFuzzTests {
        static let now = Date(timeIntervalSince1970: 1_700_000_000)
        static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

        /// IMF-fixdate of `date`, built by hand (the reference).
        static func imfFixdate(_ date: Date) -> String {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "GMT")!
            let c = calendar.dateComponents([.weekday, .day, .month, .year, .hour, .minute, .second], from: date)
            func two(_ value: Int?) -> String { String(format: "%02d", value ?? 0) }
            return "\(days[(c.weekday ?? 1) - 1]), \(two(c.day)) \(months[(c.month ?? 1) - 1]) \(c.year ?? 0) "
                + "\(two(c.hour)):\(two(c.minute)):\(two(c.second)) GMT"
        }

        /// Whatever the header says, the wait is a number every sleep in the client can take: finite,
        /// not negative, at most `RetryAfter.maximum`, and exact for delay-seconds and dates in range.
        @Test func retryAfterIsAlwaysAWaitTheClientCanSleep() {
            let seeds = ["120", "0", "1.5", "Sun, 06 Nov 1994 08:49:37 GMT", Self.imfFixdate(Self.now.addingTimeInterval(90))]
            Fuzz.run("Retry-After") { random in
                let expected: Double?
                let value: String
                switch random.int(0...3) {
                case 0:
                    let seconds = random.int(0...86_400)
                    (value, expected) = (String(seconds), Double(seconds))
                case 1:
                    let seconds = Double(random.int(0...86_400))
                    (value, expected) = (Self.imfFixdate(Self.now.addingTimeInterval(seconds)), seconds)
                case 2:
                    (value, expected) = (random.pick(["1e300", "1e20", "99999999999999999999", "9223372036854775807"]), nil)
                default:
                    (value, expected) = (random.mutate(random.pick(seeds), splices: seeds), nil)
                }
                let got = RetryAfter.seconds(from: value, now: Self.now)
                if let expected {
                    try Fuzz.check(got == expected, "\"\(value)\": \(got.map { "\($0)" } ?? "nil"), want \(expected)")
                }
                guard let got else { return }
                try Fuzz.check(got.isFinite && got >= 0 && got <= RetryAfter.maximum, "\"\(value)\": \(got) s")
                // The sleeps the client makes with a wait (RequestExecution, UploadSessionCommit, Uploader).
                _ = UInt64(got * 1_000_000_000)
                _ = Duration.seconds(got)
                let policy = RetryPolicy.untilDone(baseDelay: 1, maxDelay: 60)
                let wait = policy.wait(retryAfter: got, attempt: 3, random: 0.5)
                _ = Duration.seconds(wait)
            }
        }

        /// Regression: `Retry-After: 1e300` became a wait no sleep can take, and the daemon trapped.
        @Test func aHugeRetryAfterIsCappedNotATrap() {
            #expect(RetryAfter.seconds(from: "99999999999999999999999") == RetryAfter.maximum)
            #expect(RetryAfter.seconds(from: "1e300") == nil)
            #expect(RetryAfter.seconds(from: "Fri, 31 Dec 9999 23:59:59 GMT") == RetryAfter.maximum)
            #expect(RetryAfter.seconds(from: "nan") == nil)
        }

        /// Regression: the scanner read Characters, and a combining mark after the opening quote made one
        /// Character of the two, so the quoted value was read as a token.
        @Test func aQuotedValueStartingWithACombiningMarkIsReadWhole() {
            let challenge = BearerChallenge(headerValue: "Bearer error=\"\u{301}x, y\", realm=\"r\"")
            #expect(challenge?.error == "\u{301}x, y")
            #expect(challenge?.realm == "r")
        }

        static func token(_ random: inout FuzzRandom) -> String {
            let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.~+/!#$%&'*^`|")
            return String((0..<random.int(1...12)).map { _ in random.pick(alphabet) })
        }

        /// Generated challenges (tokens, quoted strings with escapes and odd Unicode, several schemes)
        /// parse to the parameters they were built from; mutated ones never trap.
        @Test func bearerChallengesParseToTheirParameters() {
            Fuzz.run("WWW-Authenticate") { random in
                var parameters: [(name: String, value: String)] = []
                var rendered: [String] = []
                for _ in 0..<random.int(0...5) {
                    let name = Self.token(&random)
                    let value: String
                    let text: String
                    if random.chance(0.5) {
                        value = Self.token(&random)
                        text = value
                    } else {
                        value = random.oddString()
                        // quoted-string: a backslash before every quote and backslash (scalars: a
                        // combining mark after a backslash makes one Character of the two).
                        var quoted = String.UnicodeScalarView()
                        for scalar in value.unicodeScalars {
                            if scalar == "\\" || scalar == "\"" { quoted.append("\\") }
                            quoted.append(scalar)
                        }
                        text = "\"" + String(quoted) + "\""
                    }
                    parameters.append((name.lowercased(), value))
                    rendered.append("\(name)\(random.chance(0.2) ? " = " : "=")\(text)")
                }
                let scheme = random.pick(["Bearer", "bearer", "BEARER"])
                var header = ([scheme + (rendered.isEmpty ? "" : " ")] + [rendered.joined(separator: random.pick([", ", ",", " ,\t"]))]).joined()
                if random.chance(0.3) { header = "Basic realm=\"x\", " + header }
                if random.chance(0.3) { header += ", Other a=b" }
                let mutated = random.chance(0.4)
                if mutated { header = random.mutate(header) }
                let challenge = BearerChallenge(headerValue: header)
                guard !mutated else { return }
                let want = parameters.map { "\($0.name)=\($0.value)" }
                let got = challenge?.parameters.map { "\($0.name)=\($0.value)" }
                try Fuzz.check(got == want, "\"\(header)\": \(got ?? ["nil"]), want \(want)")
            }
        }
    }
}
