/// Errors of the read path itself (errors from Box pass through unchanged).
public enum TransferError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Box sent fewer bytes than the range asked for.
    case shortRead(expectedAt: Int64)
    /// The file was read whole and its bytes do not hash to Box's SHA-1.
    case checksumMismatch(fileID: String, expected: String, actual: String)

    public var description: String {
        switch self {
        case .shortRead(let offset): "Box sent fewer bytes than asked for at offset \(offset)"
        case .checksumMismatch(let id, let expected, let actual):
            "file \(id) read whole hashes to SHA-1 \(actual), but Box says \(expected); its cached blocks were dropped"
        }
    }
}
