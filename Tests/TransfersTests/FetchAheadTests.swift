import Crypto
import Foundation
import Logging
import Synchronization
import Testing
@testable import Transfers

/// A small file's content fetched whole ahead of its read (`BlockStore.fetchAhead`): a reader joins the fetch, never
/// gets bytes that fail Box's SHA-1 nor the fetch's error, and the bytes ahead stay within read-ahead's budget.
@Suite struct FetchAheadTests {
    let logger = Logger(label: "test")

    /// Serves small files whose content is derived from their id, after `delay`; its first `badAnswers` answers are
    /// wrong (one byte flipped) and its first `failures` requests fail.
    final class ScriptedBox: Sendable {
        let delay: Duration
        let requests = Mutex<[String]>([])
        let badAnswers: Mutex<Int>
        let failures: Mutex<Int>

        init(delay: Duration = .milliseconds(50), badAnswers: Int = 0, failures: Int = 0) {
            self.delay = delay
            self.badAnswers = Mutex(badAnswers)
            self.failures = Mutex(failures)
        }

        static func content(of id: String, size: Int = 4096) -> Data {
            Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ id.hashValue) })
        }

        static func file(_ id: String, size: Int = 4096) -> RemoteFile {
            let sha1 = Insecure.SHA1.hash(data: content(of: id, size: size)).map { String(format: "%02x", $0) }.joined()
            return RemoteFile(id: id, version: "v1", size: Int64(size), sha1: sha1)
        }

        struct Refused: Error {}

        var fetcher: RangeFetcher {
            { id, range in
                self.requests.withLock { $0.append(id) }
                try await Task.sleep(for: self.delay)
                if self.failures.withLock({ count in defer { count -= 1 }; return count > 0 }) { throw Refused() }
                var data = Self.content(of: id, size: Int(range.upperBound))
                if self.badAnswers.withLock({ count in defer { count -= 1 }; return count > 0 }) { data[10] ^= 0xFF }
                return data.subdata(in: Int(range.lowerBound)..<Int(range.upperBound))
            }
        }

        func count(_ id: String) -> Int { requests.withLock { $0.filter { $0 == id }.count } }
    }

    func store(_ box: ScriptedBox, memory: Int = 16 << 20) -> BlockStore {
        BlockStore(disk: nil, blockSize: 1 << 20, memoryCapacity: memory, logger: logger, fetch: box.fetcher)
    }

    func readWhole(_ file: RemoteFile, from store: BlockStore) async throws -> Data {
        try await FileReader(file: file, store: store, logger: logger).read(offset: 0, length: Int(file.size))
    }

    @Test func aReadOfAFileBeingFetchedAheadJoinsThatFetch() async throws {
        let box = ScriptedBox(delay: .milliseconds(200))
        let store = store(box)
        let file = ScriptedBox.file("a")
        #expect(store.fetchAhead(file))
        #expect(!store.fetchAhead(file), "one fetch ahead per file")
        try await Task.sleep(for: .milliseconds(20))
        #expect(try await readWhole(file, from: store) == ScriptedBox.content(of: "a"))
        #expect(box.count("a") == 1, "the read waited for the fetch ahead instead of sending its own")
        #expect(store.aheadCount == 0)
        #expect(store.inFlightCounts.bytes == 0, "its bytes left the in-flight count")
    }

    @Test func aReadAfterTheFetchAheadIsServedFromMemory() async throws {
        let box = ScriptedBox(delay: .milliseconds(10))
        let store = store(box)
        let file = ScriptedBox.file("b")
        store.fetchAhead(file)
        while store.aheadCount > 0 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(try await readWhole(file, from: store) == ScriptedBox.content(of: "b"))
        #expect(box.count("b") == 1, "no request on the read's path: served from what the fetch ahead kept")
    }

    @Test func wrongBytesFetchedAheadNeverReachTheReader() async throws {
        let box = ScriptedBox(delay: .milliseconds(100), badAnswers: 1)
        let store = store(box)
        let file = ScriptedBox.file("c")
        store.fetchAhead(file)
        try await Task.sleep(for: .milliseconds(20))
        #expect(try await readWhole(file, from: store) == ScriptedBox.content(of: "c"), "the reader fetched it again")
        #expect(box.count("c") == 2)
    }

    @Test func aFailedFetchAheadIsNoErrorForTheReader() async throws {
        let box = ScriptedBox(delay: .milliseconds(100), failures: 1)
        let store = store(box)
        let file = ScriptedBox.file("d")
        store.fetchAhead(file)
        try await Task.sleep(for: .milliseconds(20))
        #expect(try await readWhole(file, from: store) == ScriptedBox.content(of: "d"))
        #expect(box.count("d") == 2)
    }

    @Test func fetchesAheadStayWithinReadAheadsBudget() async throws {
        let box = ScriptedBox(delay: .seconds(5))
        // 4 MiB of memory: read-ahead's budget is 3 MiB, six files of 512 KiB.
        let store = store(box, memory: 4 << 20)
        let started = (0..<10).map { store.fetchAhead(ScriptedBox.file("f\($0)", size: 512 << 10)) }
        #expect(started == Array(repeating: true, count: 6) + Array(repeating: false, count: 4))
        #expect(store.inFlightCounts.bytes <= store.aheadBudget)
        (0..<6).forEach { store.cancelAhead(ScriptedBox.file("f\($0)", size: 512 << 10)) }
        #expect(store.aheadCount == 0 && store.inFlightCounts.bytes == 0, "cancelled: the budget is free again")
    }

    @Test func onlySmallFilesWithASHA1AreFetchedAhead() {
        let store = store(ScriptedBox())
        #expect(!store.fetchAhead(RemoteFile(id: "big", version: "v1", size: (1 << 20) + 1, sha1: "00")))
        #expect(!store.fetchAhead(RemoteFile(id: "nosum", version: "v1", size: 100, sha1: nil)))
        #expect(!store.fetchAhead(RemoteFile(id: "empty", version: "v1", size: 0, sha1: "00")))
        #expect(store.aheadCount == 0)
    }

    @Test func aCancelledFetchAheadLeavesTheReadToFetchForItself() async throws {
        let box = ScriptedBox(delay: .milliseconds(300))
        let store = store(box)
        let file = ScriptedBox.file("e")
        store.fetchAhead(file)
        store.cancelAhead(file)
        #expect(store.aheadCount == 0)
        #expect(try await readWhole(file, from: store) == ScriptedBox.content(of: "e"))
    }
}
