/// A single `Range: bytes=...` request resolved against a file size (RFC 9110 §14.1.2).
enum ByteRange: Equatable, Sendable {
    /// No (usable) Range header: send everything.
    case whole
    case partial(ClosedRange<Int64>)
    /// 416 Range Not Satisfiable.
    case unsatisfiable

    static func parse(_ header: String?, size: Int64) -> ByteRange {
        guard let header else { return .whole }
        let trimmed = header.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes=") else { return .unsatisfiable }
        let spec = trimmed.dropFirst(6).trimmingCharacters(in: .whitespaces)
        // Several ranges would need multipart/byteranges; like many servers, answer the whole body instead.
        if spec.contains(",") { return .whole }
        let bounds = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard bounds.count == 2 else { return .unsatisfiable }
        let digits: (String) -> Bool = { !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }
        if bounds[0].isEmpty {
            guard digits(bounds[1]), size > 0 else { return .unsatisfiable }
            let suffix = Int64(bounds[1]) ?? Int64.max
            guard suffix > 0 else { return .unsatisfiable }
            return .partial(max(0, size - suffix)...(size - 1))
        }
        guard digits(bounds[0]), let first = Int64(bounds[0]), first < size else { return .unsatisfiable }
        if bounds[1].isEmpty { return .partial(first...(size - 1)) }
        guard digits(bounds[1]) else { return .unsatisfiable }
        let last = Int64(bounds[1]) ?? Int64.max
        guard last >= first else { return .unsatisfiable }
        return .partial(first...min(last, size - 1))
    }
}
