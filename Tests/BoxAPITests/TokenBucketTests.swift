import Foundation
import XCTest

@testable import BoxAPI

/// The pace under Box's limits as pure state (docs/SEMANTICS.md "Box's rate limits"): tokens come back one window
/// after they were spent; background calls leave the reserve to foreground ones; processes share the spending
/// times through one file.
final class TokenBucketTests: XCTestCase {
    func testASpentTokenComesBackOneWindowLater() {
        var bucket = TokenBucket(capacity: 3, window: 10)
        for time in [0.0, 1, 2] {
            XCTAssertNil(bucket.wait(now: time, priority: .foreground))
            bucket.take(now: time)
        }
        XCTAssertEqual(bucket.available(now: 2), 0)
        XCTAssertEqual(bucket.wait(now: 5, priority: .foreground), 5, "the token spent at 0 is back at 10")
        XCTAssertEqual(bucket.available(now: 10), 1)
        XCTAssertNil(bucket.wait(now: 10, priority: .foreground))
        bucket.take(now: 10)
        XCTAssertEqual(bucket.spent, [1, 2, 10], "what came back is forgotten")
        XCTAssertEqual(bucket.available(now: 12), 2, "the one spent at 2 is back too")
    }

    /// Any window of the bucket's length holds at most `capacity` spends, whatever the order of asking: what
    /// Box's sliding window (and boxsim's `--box-limits`) counts.
    func testNoWindowEverHoldsMoreThanTheCapacity() {
        var bucket = TokenBucket(capacity: 5, window: 60)
        var granted: [Double] = []
        var now = 0.0
        while now < 300 {
            if let wait = bucket.wait(now: now, priority: .foreground) {
                now += max(wait, 0.001)  // as `Pacer` sleeps
            } else {
                bucket.take(now: now)
                granted.append(now)
                now += 0.7
            }
        }
        for start in granted {
            XCTAssertLessThanOrEqual(granted.count { $0 >= start && $0 < start + 60 }, 5, "window from \(start)")
        }
        XCTAssertGreaterThanOrEqual(granted.count, 25, "5 a minute for 5 minutes: the floor, not less")
    }

    func testBackgroundLeavesTheReserveToForeground() {
        var bucket = TokenBucket(capacity: 4, window: 60, reserve: 2)
        bucket.take(now: 0)
        XCTAssertNil(bucket.wait(now: 1, priority: .background), "3 left, 2 reserved")
        bucket.take(now: 1)
        XCTAssertEqual(bucket.wait(now: 2, priority: .background), 58, "2 left: both reserved")
        XCTAssertNil(bucket.wait(now: 2, priority: .foreground))
        bucket.take(now: 2)
        bucket.take(now: 3)
        XCTAssertEqual(bucket.wait(now: 4, priority: .foreground), 56, "the first spent comes back at 60")
        XCTAssertEqual(bucket.wait(now: 4, priority: .background), 58, "background needs three back: the third at 62")
    }

    func testAClockSetBackCountsTheFutureSpendsAsNow() {
        var bucket = TokenBucket(capacity: 2, window: 60)
        bucket.take(now: 1000)
        bucket.take(now: 1001)
        XCTAssertEqual(bucket.wait(now: 500, priority: .foreground), 60, "not 560: never longer than a window")
        bucket.refill(now: 500)
        XCTAssertEqual(bucket.spent, [500, 500])
    }

    /// A search counts against calls and both search limits: taken from all or none.
    func testACallTakesEveryLimitItCountsAgainstOrNone() {
        var limits = PacingLimits()
        limits[.searchesPerSecond] = 2
        limits[.callsPerMinute] = 100
        var state = PacingState()
        let search: [PacedLimit] = [.callsPerMinute, .searchesPerSecond, .searchesPerMinute]
        XCTAssertNil(state.take(search, limits: limits, priority: .foreground, now: 0))
        XCTAssertNil(state.take(search, limits: limits, priority: .foreground, now: 0.1))
        let wait = state.take(search, limits: limits, priority: .foreground, now: 0.2)
        XCTAssertEqual(try XCTUnwrap(wait), 1.05, accuracy: 0.001, "the search second comes back at 0 + 1 + 0.25")
        XCTAssertEqual(state.spent[.callsPerMinute]?.count, 2, "the refused search took no call")
        XCTAssertNil(state.take([.callsPerMinute], limits: limits, priority: .foreground, now: 0.2))
    }

    func testTheStateSurvivesItsTextAndACutLine() {
        var state = PacingState()
        var limits = PacingLimits()
        limits[.uploadsPerMinute] = 10
        for time in [1.5, 2.25, 3.125] { _ = state.take([.callsPerMinute, .uploadsPerMinute], limits: limits, priority: .foreground, now: time) }
        XCTAssertEqual(PacingState(decoding: state.encoded()), state)
        let cut = String(state.encoded().dropLast(6))
        XCTAssertEqual(PacingState(decoding: cut).spent[.callsPerMinute], [1.5, 2.25, 3.125])
        XCTAssertEqual(PacingState(decoding: cut).spent[.uploadsPerMinute]?.count, 3, "the last time cut short reads as another number or none")
    }

    /// Two processes (two open files of one path, as two daemons have) share one bucket: together they
    /// get the capacity, not twice it; while one holds the lock the other is told so, not blocked.
    func testTwoOpenFilesOfOneAccountShareTheBucket() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pacing-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("account").path
        let first = try XCTUnwrap(PacingStateFile(path: path))
        let second = try XCTUnwrap(PacingStateFile(path: path))
        var limits = PacingLimits.none
        limits[.uploadsPerMinute] = 6
        var granted = 0
        for index in 0..<20 {
            let file = index.isMultiple(of: 2) ? first : second
            let wait = try XCTUnwrap(file.update { $0.take([.uploadsPerMinute], limits: limits, priority: .background, now: 100) })
            if wait == nil { granted += 1 }
        }
        XCTAssertEqual(granted, 6)
        let inner = first.update { _ in second.update { _ in true } }
        XCTAssertEqual(inner, .some(nil), "the second file finds the lock held and says so at once")
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber
        XCTAssertEqual(mode?.intValue, 0o600)
    }

    /// A pacer that finds no token for a background call keeps it waiting while a foreground call of the same
    /// limit takes the next token; `waiting` counts both while they wait.
    func testForegroundTakesTheNextTokenWhileBackgroundWaits() async throws {
        let now = ManualClock(0)
        var limits = PacingLimits.none
        limits[.callsPerMinute] = 40  // a reserve of 2 for foreground calls
        let pacer = Pacer(limits: limits, file: nil, clock: { now.time })
        for _ in 0..<38 { try await pacer.acquire([.callsPerMinute], priority: .background) }
        let background = Task { try await pacer.acquire([.callsPerMinute], priority: .background) }
        try await Task.sleep(nanoseconds: 100_000_000)
        XCTAssertEqual(pacer.waiting, [.callsPerMinute: 1])
        try await pacer.acquire([.callsPerMinute], priority: .foreground)
        try await pacer.acquire([.callsPerMinute], priority: .foreground)
        let third = Task { try await pacer.acquire([.callsPerMinute], priority: .foreground) }
        try await Task.sleep(nanoseconds: 100_000_000)
        XCTAssertEqual(pacer.waiting, [.callsPerMinute: 2])
        now.time = 61.5  // every token back
        try await third.value
        try await background.value
        XCTAssertEqual(pacer.waiting, [:])
    }

    func testWhatBoxCountsIsWhatIsPaced() {
        let box = BoxEndpoints.box
        func counted(_ method: String, _ url: String) -> Set<PacedLimit> {
            Set(PacedLimit.counted(method: method, url: url, endpoints: box))
        }
        XCTAssertEqual(counted("GET", "https://api.box.com/2.0/folders/0/items?limit=1000"), [.callsPerMinute])
        XCTAssertEqual(counted("GET", "https://api.box.com/2.0/search?query=x"),
                       [.callsPerMinute, .searchesPerSecond, .searchesPerMinute])
        XCTAssertEqual(counted("POST", "https://upload.box.com/api/2.0/files/content"), [.uploadsPerMinute])
        XCTAssertEqual(counted("POST", "https://upload.box.com/api/2.0/files/123/content"), [.uploadsPerMinute])
        XCTAssertEqual(counted("POST", "https://upload.box.com/api/2.0/files/upload_sessions"), [.uploadsPerMinute])
        XCTAssertEqual(counted("PUT", "https://upload.box.com/api/2.0/files/upload_sessions/ab12"), [], "a chunk part")
        XCTAssertEqual(counted("POST", "https://api.box.com/2.0/files/content"), [.callsPerMinute, .uploadsPerMinute])
        XCTAssertEqual(counted("GET", "https://dl.boxcloud.com/d/1/abc/download"), [], "the pre-signed download host")
        XCTAssertEqual(counted("GET", "https://2.realtime.services.box.net/subscribe?channel=x"), [], "the long poll")
        let sim = BoxEndpoints(serverBase: "http://127.0.0.1:8080")
        XCTAssertEqual(PacedLimit.counted(method: "POST", url: "http://127.0.0.1:8080/api/2.0/files/content", endpoints: sim),
                       [.uploadsPerMinute])
        XCTAssertEqual(PacedLimit.counted(method: "GET", url: "http://127.0.0.1:8080/2.0/events", endpoints: sim),
                       [.callsPerMinute])
    }
}

/// A clock the test moves.
private final class ManualClock: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Double
    init(_ value: Double) { self.value = value }
    var time: Double {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}

extension TokenBucketTests {
    /// The mount's first call, made before it knew the account, is counted once.
    func testAChargedCallIsCountedOnce() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pacing-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = try XCTUnwrap(PacingStateFile(path: folder.appendingPathComponent("account").path))
        let pacer = Pacer(limits: PacingLimits(), file: file, clock: { 1000 })
        await pacer.charge([.callsPerMinute])
        XCTAssertEqual(file.update { $0.spent[.callsPerMinute] }, .some([1000]))
    }
}

extension TokenBucketTests {
    /// Another account's or server's file untouched for a day goes when a bucket is opened beside it.
    func testAFileUntouchedForADayIsRemoved() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pacing-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let old = folder.appendingPathComponent("1-old").path
        let recent = folder.appendingPathComponent("1-recent").path
        for path in [old, recent] { FileManager.default.createFile(atPath: path, contents: Data("x".utf8)) }
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -90_000)], ofItemAtPath: old)
        _ = try XCTUnwrap(PacingStateFile(path: folder.appendingPathComponent("2-mine").path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: old))
        XCTAssertTrue(FileManager.default.fileExists(atPath: recent))
    }
}
