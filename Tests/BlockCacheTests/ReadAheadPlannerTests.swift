import XCTest

@testable import BlockCache

/// The read-ahead state machine, driven without I/O.
final class ReadAheadPlannerTests: XCTestCase {
    private let mib: Int64 = 1 << 20

    /// Feeds reads, checking after each the invariants every plan must keep; returns all fetches.
    private func run(_ planner: inout ReadAheadPlanner, reads: [(Int64, Int)]) -> [Range<Int64>] {
        var all: [Range<Int64>] = []
        let config = planner.configuration
        for (offset, length) in reads {
            let plan = planner.plan(offset: offset, length: length)
            for fetch in plan.fetches {
                XCTAssertEqual(fetch.lowerBound % config.blockSize, 0, "block-aligned start")
                XCTAssertTrue(fetch.upperBound % config.blockSize == 0 || fetch.upperBound == planner.fileSize)
                XCTAssertLessThanOrEqual(Int64(fetch.count), config.partSize)
                XCTAssertLessThanOrEqual(fetch.upperBound, planner.fileSize)
            }
            if let streamEnd = planner.streamEnd {
                XCTAssertLessThanOrEqual(planner.planned.upperBound - streamEnd, config.maximumAhead, "memory bound")
            }
            all += plan.fetches
        }
        return all
    }

    private func assertNoOverlap(_ fetches: [Range<Int64>], file: StaticString = #filePath, line: UInt = #line) {
        let sorted = fetches.sorted { $0.lowerBound < $1.lowerBound }
        for (a, b) in zip(sorted, sorted.dropFirst()) {
            XCTAssertLessThanOrEqual(a.upperBound, b.lowerBound, "\(a) and \(b) overlap", file: file, line: line)
        }
    }

    func testSequentialReadingGrowsTheWindowUpToItsCap() {
        var planner = ReadAheadPlanner(fileSize: 200 * mib)
        var windows: [Int64] = []
        var fetches: [Range<Int64>] = []
        for step in 0..<200 {
            fetches += run(&planner, reads: [(Int64(step) * mib, Int(mib))])
            if windows.last != planner.window { windows.append(planner.window) }
        }
        XCTAssertEqual(windows, [2 * mib, 4 * mib, 8 * mib, 16 * mib])
        assertNoOverlap(fetches)
        XCTAssertEqual(fetches.reduce(0) { $0 + Int64($1.count) }, 200 * mib, "every byte once, nothing past EOF")
        XCTAssertTrue(fetches.contains { Int64($0.count) == 8 * mib }, "large windows become 8 MiB parts")
    }

    func testTheFirstSmallReadFetchesOneBlockThenReadAheadStarts() {
        var planner = ReadAheadPlanner(fileSize: 4 << 30)
        let first = planner.plan(offset: 0, length: 131_072)
        XCTAssertEqual(first, .init(fetches: [0..<mib], isSequential: false, startsNewStream: false))
        let second = planner.plan(offset: 131_072, length: 131_072)
        XCTAssertTrue(second.isSequential)
        XCTAssertEqual(second.fetches, [mib..<3 * mib], "the initial window, after the block already planned")
    }

    func testASeekResetsTheWindowAndFetchesOnlyTheBlocksAsked() {
        var planner = ReadAheadPlanner(fileSize: 1 << 30)
        _ = run(&planner, reads: (0..<40).map { (Int64($0) * mib, Int(mib)) })
        XCTAssertEqual(planner.window, 16 * mib)
        let seek = planner.plan(offset: 500 * mib + 10, length: 4096)
        XCTAssertEqual(seek, .init(fetches: [500 * mib..<501 * mib], isSequential: false, startsNewStream: true))
        XCTAssertEqual(planner.window, planner.configuration.initialWindow)
        let back = planner.plan(offset: 100 * mib, length: 4096)
        XCTAssertTrue(back.startsNewStream, "a jump backwards beyond the tolerance is a seek too")
        XCTAssertEqual(back.fetches, [100 * mib..<101 * mib])
    }

    func testRandomAccessFetchesOnlyWhatIsAskedPlusBlockRounding() {
        var planner = ReadAheadPlanner(fileSize: 10 << 30)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let offset = Int64.random(in: 0..<(10 << 30) - 65_536, using: &generator)
            let length = Int.random(in: 1...65_536, using: &generator)
            let plan = planner.plan(offset: offset, length: length)
            if plan.isSequential { continue }  // two random offsets may land within the tolerance
            let first = offset / mib * mib, last = (offset + Int64(length) - 1) / mib * mib + mib
            XCTAssertEqual(plan.fetches, [first..<last], "offset \(offset) length \(length)")
        }
    }

    func testOutOfOrderKernelReadsInsideTheWindowAreNeitherSeeksNorRefetched() {
        var planner = ReadAheadPlanner(fileSize: 1 << 30)
        let chunk = 131_072
        // Like Linux async read-ahead: 128 KiB requests, some arriving before their predecessors.
        let order = [0, 1, 3, 2, 4, 6, 5, 7, 9, 8, 12, 10, 11, 13, 15, 14] + Array(16..<200)
        var fetches: [Range<Int64>] = []
        for index in order {
            let plan = planner.plan(offset: Int64(index * chunk), length: chunk)
            XCTAssertFalse(plan.startsNewStream, "read \(index)")
            XCTAssertEqual(plan.isSequential, index != 0)
            fetches += plan.fetches
        }
        assertNoOverlap(fetches)
        let covered = fetches.reduce(0) { $0 + Int64($1.count) }
        XCTAssertGreaterThanOrEqual(covered, Int64(200 * chunk))
        XCTAssertLessThanOrEqual(covered, Int64(200 * chunk) + planner.configuration.maximumAhead)
    }

    func testPlannedButUnreadBytesStayWithinTheMemoryBound() {
        let config = ReadAheadPlanner.Configuration(blockSize: 4096, initialWindow: 8192, maximumWindow: 65_536,
                                                    partSize: 16_384, maximumAhead: 98_304)
        var planner = ReadAheadPlanner(fileSize: 100 << 20, configuration: config)
        var offset: Int64 = 0
        var generator = SystemRandomNumberGenerator()
        var reads: [(Int64, Int)] = []
        for _ in 0..<5000 {
            let length = Int.random(in: 1...8192, using: &generator)
            reads.append((offset, length))
            offset += Int64(length) + Int64.random(in: -4096...20_000, using: &generator)
            offset = max(0, offset)
        }
        _ = run(&planner, reads: reads)  // `run` asserts the bound after every read
        XCTAssertEqual(planner.window, 65_536, "the jittery stream still counts as sequential")
    }

    func testReadsAtOrPastTheEndPlanNothingAndTheLastBlockIsShort() {
        var planner = ReadAheadPlanner(fileSize: 2 * mib + 5)
        XCTAssertEqual(planner.plan(offset: 2 * mib + 5, length: 100).fetches, [])
        XCTAssertEqual(planner.plan(offset: 0, length: 0).fetches, [])
        XCTAssertEqual(planner.plan(offset: 2 * mib, length: 1 << 20).fetches, [2 * mib..<2 * mib + 5])
        var empty = ReadAheadPlanner(fileSize: 0)
        XCTAssertEqual(empty.plan(offset: 0, length: 4096).fetches, [])
    }
}
