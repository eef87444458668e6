import Crypto
import Foundation

/// Checks a file read whole against Box's SHA-1, as the bytes are handed out: a pure value type.
///
/// The kernel's read-ahead completes out of order, so pieces that arrive early wait in a small
/// reorder buffer; past `maximumPending` bytes the check is abandoned for this handle (it is a
/// safety net for whole reads, not a guarantee for every access pattern).
struct WholeFileVerifier {
    enum Outcome: Equatable {
        case pending
        case matched
        case mismatched(actual: String)
        case abandoned
    }

    static let maximumPending = 64 << 20

    let size: Int64
    let expected: String?
    private var hasher = Insecure.SHA1()
    private var next: Int64 = 0
    private var pending: [Int64: Data] = [:]
    private var pendingBytes = 0
    private(set) var outcome: Outcome

    init(size: Int64, expected: String?) {
        self.size = size
        self.expected = expected?.lowercased()
        self.outcome = expected == nil ? .abandoned : .pending
    }

    /// Records bytes handed to a reader at `offset`; returns the outcome once it is known.
    mutating func record(_ data: Data, at offset: Int64) -> Outcome {
        guard outcome == .pending, !data.isEmpty else { return outcome }
        if offset + Int64(data.count) <= next { return outcome }  // a re-read of hashed bytes
        if offset > next {
            if pending[offset] == nil {
                pending[offset] = data
                pendingBytes += data.count
            }
            if pendingBytes > Self.maximumPending { abandon() }
            return outcome
        }
        consume(data.dropFirst(Int(next - offset)))
        while let piece = pending.first(where: { $0.key <= next }) {
            pending[piece.key] = nil
            pendingBytes -= piece.value.count
            let end = piece.key + Int64(piece.value.count)
            if end > next { consume(piece.value.dropFirst(Int(next - piece.key))) }
        }
        if next == size { finish() }
        return outcome
    }

    private mutating func consume(_ data: Data) {
        hasher.update(data: data)
        next += Int64(data.count)
    }

    private mutating func finish() {
        let actual = hasher.finalize().map { String(format: "%02x", $0) }.joined()
        outcome = actual == expected ? .matched : .mismatched(actual: actual)
        pending = [:]
    }

    private mutating func abandon() {
        outcome = .abandoned
        pending = [:]
        pendingBytes = 0
    }
}
