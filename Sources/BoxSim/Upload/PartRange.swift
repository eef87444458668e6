import Foundation
import Hummingbird

/// The `Content-Range: bytes lo-hi/total` of an upload-session part, checked against the session.
struct PartRange: Equatable, Sendable {
    var lower: Int64
    var size: Int64

    /// 400 if absent or malformed, 416 if the range does not fit the session's file size and part size.
    static func parse(_ header: String?, fileSize: Int64, partSize: Int64) throws(BoxError) -> PartRange {
        guard let header else {
            throw BoxError.invalidParameter("content-range", "'content-range' is required")
        }
        let text = header.trimmingCharacters(in: .whitespaces)
        guard text.lowercased().hasPrefix("bytes ") else {
            throw BoxError.invalidParameter("content-range", "Invalid value '\(header)'.")
        }
        let numbers = text.dropFirst(6).split(whereSeparator: { $0 == "-" || $0 == "/" }).map { Int64($0) }
        guard numbers.count == 3, let lower = numbers[0], let upper = numbers[1], let total = numbers[2] else {
            throw BoxError.invalidParameter("content-range", "Invalid value '\(header)'.")
        }
        // The bounds are checked before the size is computed from them: `upper - lower + 1` overflows
        // for an upper bound of Int64.max.
        let inFile = total == fileSize && lower >= 0 && upper >= lower && upper < fileSize
        let size = inFile ? upper - lower + 1 : 0
        let isLast = upper == fileSize - 1
        guard inFile, lower % partSize == 0, isLast ? size <= partSize : size == partSize else {
            throw BoxError(status: .rangeNotSatisfiable, code: "requested_range_not_satisfiable",
                           message: "The Content-Range does not match a part of this upload session")
        }
        return PartRange(lower: lower, size: size)
    }
}
