import Foundation

/// Byte-level mutation of valid seeds, and the odd values parsers meet in the wild.
extension FuzzRandom {
    /// Tokens that break parsers: huge and negative numbers, separators, quotes, control bytes, odd
    /// Unicode (combining marks, right-to-left override, BOM, flags, CRLF as one Character).
    static let interesting: [String] = [
        "0", "-1", "-0", "+1", "1e308", "1e400", "-1e400", "NaN", "nan", "inf", "infinity", "0x10", "1_000", "1.5",
        "9223372036854775807", "9223372036854775808", "-9223372036854775808", "18446744073709551615",
        "99999999999999999999999999999999", "4294967295", "4294967296", "00000000000000000000001",
        ",", ";", "=", ":", "-", "/", "\"", "\\", "#", "\r\n", "\n", "\r", "\t", " ", "\0", "\u{7F}",
        "é", "e\u{301}", "\u{202E}", "\u{FEFF}", "\u{2028}", "🇺🇸", "👩‍👩‍👧", "\u{10FFFF}", "١٢٣", "½", "Ⅻ", "０",
        "{", "}", "[", "]", "null", "true", "\"\"", "{}", "[]",
    ]

    /// 0...8 random mutations of `bytes`; `splices` are other valid inputs to cross over with.
    mutating func mutate(_ bytes: [UInt8], splices: [[UInt8]] = []) -> [UInt8] {
        var data = bytes
        for _ in 0..<int(0...8) {
            let position = data.isEmpty ? 0 : int(0...data.count)
            switch int(0...10) {
            case 0 where !data.isEmpty:  // flip a bit
                let index = int(0...data.count - 1)
                data[index] ^= UInt8(1) << UInt8(int(0...7))
            case 1 where !data.isEmpty:  // any byte
                data[int(0...data.count - 1)] = UInt8.random(in: 0...255, using: &self)
            case 2:  // insert bytes
                data.insert(contentsOf: (0..<int(1...4)).map { _ in UInt8.random(in: 0...255, using: &self) }, at: position)
            case 3 where !data.isEmpty:  // delete a range
                let end = min(data.count, position + int(1...16))
                data.removeSubrange(min(position, end)..<end)
            case 4:  // truncate
                data.removeSubrange(position...)
            case 5 where !data.isEmpty:  // duplicate a range in place
                let start = int(0...data.count - 1)
                let end = min(data.count, start + int(1...32))
                data.insert(contentsOf: data[start..<end], at: position)
            case 6 where !splices.isEmpty:  // cross over with another seed
                let other = pick(splices)
                guard !other.isEmpty else { break }
                let start = int(0...other.count - 1)
                let end = min(other.count, start + int(1...64))
                data.insert(contentsOf: other[start..<end], at: position)
            case 7 where !data.isEmpty:  // repeat a range many times (deep nesting, long runs)
                let start = int(0...data.count - 1)
                let end = min(data.count, start + int(1...4))
                let piece = data[start..<end]
                data.insert(contentsOf: Array(repeating: piece, count: int(2...2000)).joined(), at: position)
            default:  // an interesting token
                data.insert(contentsOf: Array(pick(Self.interesting).utf8), at: position)
            }
        }
        return data
    }

    mutating func mutate(_ text: String, splices: [String] = []) -> String {
        String(decoding: mutate(Array(text.utf8), splices: splices.map { Array($0.utf8) }), as: UTF8.self)
    }

    /// A short string of mixed ASCII, separators and odd Unicode.
    mutating func oddString(maxLength: Int = 12) -> String {
        var text = ""
        for _ in 0..<int(0...maxLength) {
            switch int(0...3) {
            case 0: text += pick(Self.interesting)
            case 1: text.unicodeScalars.append(Unicode.Scalar(UInt8(int(0x20...0x7E))))
            case 2: text.unicodeScalars.append(Unicode.Scalar(UInt32(int(0xA0...0x2FFF))) ?? "x")
            default: text += pick(["a", "Z", "_", "-", ".", "9"])
            }
        }
        return text
    }

    /// A non-negative number biased toward edges: small, powers of two, near Int64.max.
    mutating func edgyInt64() -> Int64 {
        switch int(0...4) {
        case 0: return Int64(int(0...10))
        case 1: return Int64(int(0...100_000))
        case 2: return Int64(1) << Int64(int(0...62))
        case 3: return Int64.max - Int64(int(0...10))
        default: return Int64.random(in: 0...Int64.max, using: &self)
        }
    }
}

extension String {
    /// True when the text is one line: no line breaks of any kind.
    var isOneLine: Bool { !contains(where: \.isNewline) }
}
