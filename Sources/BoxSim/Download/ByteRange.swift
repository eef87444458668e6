import Foundation

/// A `Range: bytes=...` request resolved against a file size (RFC 9110 §14.1.2, §14.2).
enum ByteRange: Equatable, Sendable {
    /// No (usable) Range header: send everything.
    case whole
    case partial(ClosedRange<Int64>)
    /// Several satisfiable ranges, in the order asked: a `multipart/byteranges` answer (RFC 9110 §14.6).
    case multiple([ClosedRange<Int64>])
    /// 416 Range Not Satisfiable.
    case unsatisfiable

    /// More ranges than this in one header are ignored (whole body), as RFC 9110 §14.2 allows for
    /// many small ranges.
    static let maxRanges = 100

    static func parse(_ header: String?, size: Int64) -> ByteRange {
        guard let header else { return .whole }
        let trimmed = header.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes=") else { return .unsatisfiable }
        let specs = trimmed.dropFirst(6).split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard specs.count <= maxRanges else { return .whole }
        var satisfiable: [ClosedRange<Int64>] = []
        for spec in specs {
            switch parseOne(spec, size: size) {
            case .invalid: return .unsatisfiable
            case .beyondEnd: continue
            case .range(let range): satisfiable.append(range)
            }
        }
        switch satisfiable.count {
        case 0: return .unsatisfiable
        case 1: return .partial(satisfiable[0])
        default: return .multiple(satisfiable)
        }
    }

    private enum Spec {
        case range(ClosedRange<Int64>)
        /// Well formed but starting at or after the end (or a suffix of an empty file): skipped.
        case beyondEnd
        case invalid
    }

    private static func parseOne(_ spec: String, size: Int64) -> Spec {
        let bounds = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard bounds.count == 2 else { return .invalid }
        let digits: (String) -> Bool = { !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }
        if bounds[0].isEmpty {
            guard digits(bounds[1]) else { return .invalid }
            let suffix = Int64(bounds[1]) ?? Int64.max
            guard suffix > 0, size > 0 else { return .beyondEnd }
            return .range(max(0, size - suffix)...(size - 1))
        }
        guard digits(bounds[0]) else { return .invalid }
        if !bounds[1].isEmpty {
            guard digits(bounds[1]), !isLess(bounds[1], than: bounds[0]) else { return .invalid }
        }
        // A first byte beyond Int64 is well formed and past the end of any file.
        guard let first = Int64(bounds[0]), first < size else { return .beyondEnd }
        let last = bounds[1].isEmpty ? size - 1 : min(Int64(bounds[1]) ?? Int64.max, size - 1)
        return .range(first...last)
    }

    /// Compares two digit strings of any length by value.
    private static func isLess(_ a: String, than b: String) -> Bool {
        let x = a.drop { $0 == "0" }, y = b.drop { $0 == "0" }
        return x.count != y.count ? x.count < y.count : x.lexicographicallyPrecedes(y)
    }
}
