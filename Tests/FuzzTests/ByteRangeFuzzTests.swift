import Foundation
import Testing

@testable import BoxSim

extension FuzzTier {
    /// boxsim's `Range: bytes=...` parser (RFC 9110 §14.1.2) and its upload-part `Content-Range` parser.
    @Suite struct ByteRangeFuzzTests {
        /// One generated range spec: its text, and what a simple reference says it means.
        enum Spec {
            case closed(String, String)  // "a-b"
            case open(String)  // "a-"
            case suffix(String)  // "-n"
            case garbage(String)

            var text: String {
                switch self {
                case .closed(let first, let last): "\(first)-\(last)"
                case .open(let first): "\(first)-"
                case .suffix(let count): "-\(count)"
                case .garbage(let text): text
                }
            }
        }

        /// Digit strings, some beyond Int64 and some with leading zeros.
        static func number(_ random: inout FuzzRandom, below size: Int64) -> String {
            switch random.int(0...5) {
            case 0: return String(random.int(0...9))
            case 1: return String(Int64.random(in: 0...(size > Int64.max - 2 ? Int64.max : size + 2), using: &random))
            case 2: return "000" + String(random.int(0...99))
            case 3: return String(random.edgyInt64())
            case 4: return "9" + String(repeating: "9", count: random.int(18...40))
            default: return String(Int64.random(in: 0...max(0, size / 2), using: &random))
            }
        }

        static func spec(_ random: inout FuzzRandom, size: Int64) -> Spec {
            switch random.int(0...9) {
            case 0...3: return .closed(number(&random, below: size), number(&random, below: size))
            case 4, 5: return .open(number(&random, below: size))
            case 6, 7: return .suffix(number(&random, below: size))
            default: return .garbage(random.pick(["", "-", "x-1", "1-x", "1", "--1", "1--2", "+1-2", "1-+2", "١-٢", "0x1-2"]))
            }
        }

        /// Exact comparison of digit strings of any length.
        static func compare(_ a: String, _ b: String) -> Int {
            let x = String(a.drop { $0 == "0" }), y = String(b.drop { $0 == "0" })
            if x.count != y.count { return x.count < y.count ? -1 : 1 }
            return x == y ? 0 : (x < y ? -1 : 1)
        }

        /// `min(value, limit)` for a digit string of any length.
        static func clamp(_ value: String, to limit: Int64) -> Int64 {
            compare(value, String(limit)) <= 0 ? Int64(value)! : limit
        }

        enum Expected: Equatable { case invalid, skip, range(ClosedRange<Int64>) }

        /// The reference: RFC 9110 §14.1.2 read literally, on exact numbers.
        static func expected(_ spec: Spec, size: Int64) -> Expected {
            switch spec {
            case .garbage: return .invalid
            case .closed(let first, let last):
                guard compare(first, last) <= 0 else { return .invalid }
                guard compare(first, String(size)) < 0 else { return .skip }
                return .range(Int64(first)!...clamp(last, to: size - 1))
            case .open(let first):
                guard compare(first, String(size)) < 0 else { return .skip }
                return .range(Int64(first)!...(size - 1))
            case .suffix(let count):
                guard compare(count, "0") > 0, size > 0 else { return .skip }
                return .range((size - clamp(count, to: size))...(size - 1))
            }
        }

        @Test func validRangesParseToWhatTheReferenceSays() {
            Fuzz.run("Range header (oracle)") { random in
                let size = random.chance(0.1) ? 0 : random.edgyInt64()
                let specs = (0..<random.int(1...5)).map { _ in Self.spec(&random, size: size) }
                let space = { (random: inout FuzzRandom) in random.chance(0.2) ? " " : "" }
                var header = random.pick(["bytes=", "Bytes=", "BYTES="]) + space(&random)
                header += specs.map { $0.text }.joined(separator: space(&random) + "," + space(&random))
                let reference = specs.map { Self.expected($0, size: size) }
                let want: ByteRange
                if reference.contains(.invalid) {
                    want = .unsatisfiable
                } else {
                    let ranges = reference.compactMap { if case .range(let range) = $0 { range } else { nil } }
                    want = ranges.isEmpty ? .unsatisfiable : ranges.count == 1 ? .partial(ranges[0]) : .multiple(ranges)
                }
                let got = ByteRange.parse(header, size: size)
                try Fuzz.check(got == want, "\"\(header)\" on \(size) bytes: got \(got), the reference says \(want)")
            }
        }

        @Test func mutatedRangesNeverTrapAndStayInsideTheFile() {
            let seeds = ["bytes=0-99", "bytes=-500", "bytes=100-", "bytes=0-0,5-9,-1", "bytes= 1 - 2 , 3-"]
            Fuzz.run("Range header (mutations)", iterations: 5000) { random in
                let size = random.chance(0.1) ? 0 : random.edgyInt64()
                let header = random.mutate(random.pick(seeds), splices: seeds)
                let ranges: [ClosedRange<Int64>]
                switch ByteRange.parse(header, size: size) {
                case .whole, .unsatisfiable: ranges = []
                case .partial(let range): ranges = [range]
                case .multiple(let list): ranges = list
                }
                for range in ranges {
                    try Fuzz.check(range.lowerBound >= 0 && range.upperBound < size,
                                   "\"\(header)\" on \(size) bytes gave \(range), outside the file")
                }
            }
        }

        @Test func partContentRangesNeverTrapAndFitTheSession() {
            Fuzz.run("upload part Content-Range", iterations: 5000) { random in
                let partSize = Int64(random.pick([1, 8, 1 << 20, 8 << 20]))
                let fileSize = random.chance(0.5) ? Int64(random.int(1...100)) * partSize + Int64(random.int(0...7))
                    : max(1, random.edgyInt64())
                let lower = random.chance(0.5) ? Int64(random.int(0...10)) * partSize : random.edgyInt64()
                let upper = random.chance(0.5) ? lower + min(partSize - 1, Int64.max - lower) : random.edgyInt64()
                var header = "bytes \(lower)-\(upper)/\(random.chance(0.8) ? String(fileSize) : String(random.edgyInt64()))"
                if random.chance(0.5) { header = random.mutate(header) }
                do {
                    let range = try PartRange.parse(header, fileSize: fileSize, partSize: partSize)
                    try Fuzz.check(range.lower >= 0 && range.size > 0 && range.lower % partSize == 0
                                   && range.size <= partSize && range.lower <= fileSize - range.size,
                                   "\"\(header)\" (file \(fileSize), parts of \(partSize)) gave \(range)")
                } catch let error as BoxError {
                    try Fuzz.check([400, 416].contains(error.status.code), "\"\(header)\": status \(error.status)")
                }
            }
        }

        /// Regression: `upper - lower + 1` overflowed (a trap in boxsim) for an upper bound of Int64.max.
        @Test func aPartRangeEndingAtInt64MaxIsRefusedNotATrap() {
            #expect(throws: BoxError.self) {
                try PartRange.parse("bytes 0-9223372036854775807/10", fileSize: 10, partSize: 8)
            }
        }

        /// Regression: a first byte beyond Int64 is a well-formed range past the end, skipped like any other.
        @Test func aFirstByteBeyondInt64IsSkippedNotUnsatisfiable() {
            #expect(ByteRange.parse("bytes=0-9, 99999999999999999999-", size: 100) == .partial(0...9))
        }
    }
}
