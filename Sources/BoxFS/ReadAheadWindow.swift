/// Decides how many bytes to fetch for a read on one open handle: a pure state machine, no I/O.
///
/// Sequential reading grows the window (doubling from `initial` up to `maximum`); a jump resets it,
/// so random access fetches little more than was asked. Reads that land a little before or after the
/// expected offset still count as sequential, because the kernel sends read-ahead out of order.
struct ReadAheadWindow: Sendable, Equatable {
    /// 1 MiB + 128 KiB: covers Linux's initial read-ahead so a streaming read needs one request to start.
    static let initial: Int64 = 1_179_648
    static let maximum: Int64 = 8 << 20
    /// How far forward or back a read may land and still count as part of the stream.
    static let forwardTolerance: Int64 = 16 << 20
    static let backwardTolerance: Int64 = 1 << 20

    private(set) var size: Int64 = initial
    private(set) var expectedOffset: Int64?

    /// Whether a read at `offset` continues the stream seen so far.
    func isSequential(_ offset: Int64) -> Bool {
        guard let expected = expectedOffset else { return false }
        return offset >= expected - Self.backwardTolerance && offset <= expected + Self.forwardTolerance
    }

    /// Records a read of `length` bytes at `offset`, growing or resetting the window.
    mutating func record(offset: Int64, length: Int64) {
        if isSequential(offset) {
            size = min(size * 2, Self.maximum)
        } else if expectedOffset != nil {
            size = Self.initial
        }
        expectedOffset = max(offset + length, expectedOffset ?? 0)
    }
}
