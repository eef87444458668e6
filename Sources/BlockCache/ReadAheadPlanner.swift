/// Decides which byte ranges one open handle should fetch: a pure value-type state machine, no I/O.
///
/// Each read is reported with `plan(offset:length:)`; the answer lists block-aligned ranges, each at
/// most `partSize` long (one HTTP range request each), that the caller should make sure are cached or
/// in flight. The caller still skips ranges it already has; the planner only avoids repeating what it
/// planned itself for the current stream.
///
/// - A read that does not continue the stream (the first read, or a seek beyond the tolerances) is
///   random access: it gets only its own blocks, the window resets to `initialWindow`, and
///   `startsNewStream` tells the caller that read-ahead planned for the old position is not needed.
/// - A read within `backwardTolerance` before or `forwardTolerance` after the stream's end continues
///   it, because the kernel sends its read-ahead out of order. Once less than half a window is
///   planned ahead of the stream, the next window is planned and the window doubles, up to
///   `maximumWindow`.
/// - Memory bound: nothing is planned further than `maximumAhead` past the block holding the
///   stream's end, so bytes fetched but not yet read stay below `maximumAhead` (+ one read).
public struct ReadAheadPlanner: Sendable, Equatable {
    public struct Configuration: Sendable, Equatable {
        public let blockSize: Int64
        public let initialWindow: Int64
        public let maximumWindow: Int64
        public let partSize: Int64
        public let maximumAhead: Int64
        public let forwardTolerance: Int64
        public let backwardTolerance: Int64

        /// Sizes are rounded up to whole blocks; the maximum window is at least the initial one and
        /// the memory bound at least one and a half maximum windows (the next window is planned
        /// when half of the current one is left).
        public init(blockSize: Int64 = 1 << 20, initialWindow: Int64 = 1_179_648, maximumWindow: Int64 = 16 << 20,
                    partSize: Int64 = 8 << 20, maximumAhead: Int64? = nil,
                    forwardTolerance: Int64 = 16 << 20, backwardTolerance: Int64 = 1 << 20) {
            precondition(blockSize > 0, "block size must be positive")
            func blocks(_ value: Int64) -> Int64 { max(1, (value + blockSize - 1) / blockSize) * blockSize }
            self.blockSize = blockSize
            self.initialWindow = blocks(initialWindow)
            self.maximumWindow = max(self.initialWindow, blocks(maximumWindow))
            self.partSize = blocks(partSize)
            self.maximumAhead = max(blocks(maximumAhead ?? 0), self.maximumWindow + self.maximumWindow / 2)
            self.forwardTolerance = max(0, forwardTolerance)
            self.backwardTolerance = max(0, backwardTolerance)
        }

        /// 1 MiB blocks; the first read-ahead is 1 MiB + 128 KiB (Linux's own read-ahead on top of a
        /// 1 MiB read) rounded to 2 MiB; windows double to 16 MiB = two 8 MiB range requests in flight,
        /// which PERFORMANCE.md found to saturate loopback on two cores; 24 MiB ahead per handle.
        public static let standard = Configuration()
    }

    public struct Plan: Sendable, Equatable {
        /// Block-aligned, ascending, non-overlapping ranges of at most `partSize` bytes.
        public var fetches: [Range<Int64>]
        public var isSequential: Bool
        /// The read jumped away from an earlier stream: its planned read-ahead can be cancelled.
        public var startsNewStream: Bool
    }

    public let fileSize: Int64
    public let configuration: Configuration
    /// The next window of read-ahead to plan.
    public private(set) var window: Int64
    /// One past the highest byte read in the current stream; nil before the first read.
    public private(set) var streamEnd: Int64?
    /// Blocks in `planned` have been planned for the current stream.
    public private(set) var planned: Range<Int64> = 0..<0

    public init(fileSize: Int64, configuration: Configuration = .standard) {
        self.fileSize = max(0, fileSize)
        self.configuration = configuration
        window = configuration.initialWindow
    }

    /// Records a read of `length` bytes at `offset` and returns what to fetch for it.
    public mutating func plan(offset: Int64, length: Int) -> Plan {
        let end = min(offset + Int64(max(0, length)), fileSize)
        guard offset >= 0, offset < end else { return Plan(fetches: [], isSequential: false, startsNewStream: false) }
        let needed = roundedToBlocks(offset..<end)
        guard let previousEnd = streamEnd, isContinuation(offset, of: previousEnd) else {
            let startsNewStream = streamEnd != nil
            window = configuration.initialWindow
            streamEnd = end
            planned = needed
            return Plan(fetches: split(needed), isSequential: false, startsNewStream: startsNewStream)
        }
        streamEnd = max(previousEnd, end)
        var fetches = unplannedBlocks(of: needed)
        fetches += readAhead()
        return Plan(fetches: fetches, isSequential: true, startsNewStream: false)
    }

    private func isContinuation(_ offset: Int64, of previousEnd: Int64) -> Bool {
        offset >= previousEnd - configuration.backwardTolerance
            && offset <= previousEnd + configuration.forwardTolerance
    }

    /// The parts of a sequential read not planned yet (it may land before or after the planned span).
    private mutating func unplannedBlocks(of needed: Range<Int64>) -> [Range<Int64>] {
        var fetches: [Range<Int64>] = []
        if needed.lowerBound < planned.lowerBound {
            fetches += split(needed.lowerBound..<min(needed.upperBound, planned.lowerBound))
            if needed.upperBound >= planned.lowerBound { planned = needed.lowerBound..<planned.upperBound }
        }
        if needed.upperBound > planned.upperBound {
            let from = max(needed.lowerBound, planned.upperBound)
            fetches += split(from..<needed.upperBound)
            // A forward jump leaves a gap nobody asked for: the planned span restarts after it.
            planned = (from > planned.upperBound ? from : planned.lowerBound)..<needed.upperBound
        }
        return fetches
    }

    /// The next window, when less than half of the current one is left ahead of the stream.
    private mutating func readAhead() -> [Range<Int64>] {
        guard let streamEnd else { return [] }
        let readBlockStart = streamEnd / configuration.blockSize * configuration.blockSize
        let limit = min(fileSize, readBlockStart + configuration.maximumAhead)
        guard planned.upperBound < limit, planned.upperBound - streamEnd < window / 2 else { return [] }
        let next = planned.upperBound..<min(limit, planned.upperBound + window)
        planned = planned.lowerBound..<next.upperBound
        window = min(window * 2, configuration.maximumWindow)
        return split(next)
    }

    private func roundedToBlocks(_ range: Range<Int64>) -> Range<Int64> {
        let size = configuration.blockSize
        let lower = range.lowerBound / size * size
        let upper = min(fileSize, (range.upperBound + size - 1) / size * size)
        return lower..<upper
    }

    private func split(_ range: Range<Int64>) -> [Range<Int64>] {
        stride(from: range.lowerBound, to: range.upperBound, by: Int(configuration.partSize)).map {
            $0..<min(range.upperBound, $0 + configuration.partSize)
        }
    }
}
