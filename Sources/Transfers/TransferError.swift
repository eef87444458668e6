/// Errors of the read path itself (errors from Box pass through unchanged).
public enum TransferError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Box sent fewer bytes than the range asked for.
    case shortRead(expectedAt: Int64)
    /// The file was read whole and its bytes do not hash to Box's SHA-1.
    case checksumMismatch(fileID: String, expected: String, actual: String)
    /// No byte of a range arrived for `seconds` (the mount's `stall_timeout`), retries included.
    case stalled(fileID: String, range: Range<Int64>, seconds: Double)
    /// A file fetched whole to be kept (pinned) has blocks the disk cache found no room for.
    case notKept(fileID: String)

    public var description: String {
        switch self {
        case .shortRead(let offset): "Box sent fewer bytes than asked for at offset \(offset)"
        case .checksumMismatch(let id, let expected, let actual):
            "file \(id) read whole hashes to SHA-1 \(actual), but Box says \(expected); its cached blocks were dropped"
        case .stalled(let id, let range, let seconds):
            "download of bytes \(range.lowerBound)..<\(range.upperBound) of file \(id) stalled: "
                + "nothing arrived for \(seconds.formatted()) s (stall_timeout)"
        case .notKept(let id):
            "file \(id) was fetched whole but the disk cache had no room to keep all of it (pin_size, or the disk is full)"
        }
    }
}
