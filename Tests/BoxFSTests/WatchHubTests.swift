import BoxAPI
import Foundation
import Testing

@testable import BoxFS

/// `boxfs watch`'s stream (`WatchHub`): a slow reader's buffer is bounded and the gap is said where it is; a change
/// is shown below its folder by its path or its old path; Box's event types name the kind printed.
@Suite struct WatchHubTests {
    private static func line(_ path: String) -> Data {
        var change = WatchChange()
        change.path = path
        change.kind = "created"
        return WatchHub.line(change)!
    }

    private static func changes(_ data: Data) throws -> [WatchChange] {
        try data.split(separator: UInt8(ascii: "\n")).map { try CommandFile.decoder.decode(WatchChange.self, from: Data($0)) }
    }

    @Test func aReaderTooSlowGetsTheLinesThatFitThenHowManyWereDroppedThenWhatCameAfter() async throws {
        let hub = WatchHub()
        let subscription = hub.subscribe(folder: 1)
        for number in 0..<5 { subscription.push(Self.line("f\(number)"), capacity: 3) }
        subscription.push(Self.line("later"), capacity: 3)  // still full: dropped too
        let first = try Self.changes(try await subscription.read(length: 64 * 1024))
        #expect(first.map(\.path) == ["f0", "f1", "f2"])
        subscription.push(Self.line("after"), capacity: 3)
        let next = try Self.changes(try await subscription.read(length: 64 * 1024))
        #expect(next.map(\.dropped) == [3, nil], "the gap is said before what came after it")
        #expect(next.last?.path == "after")
    }

    @Test func aReadWaitsForALineAndEndsAtClose() async throws {
        let hub = WatchHub()
        let subscription = hub.subscribe(folder: 1)
        let reader = Task { try await subscription.read(length: 4096) }
        try await Task.sleep(nanoseconds: 50_000_000)
        subscription.push(Self.line("a"), capacity: 10)
        #expect(try Self.changes(try await reader.value).map(\.path) == ["a"])
        hub.unsubscribe(subscription)
        #expect(try await subscription.read(length: 4096).isEmpty, "end of file once closed")
    }

    @Test func aLineLongerThanTheReadComesInPieces() async throws {
        let subscription = WatchHub().subscribe(folder: 1)
        let line = Self.line("a-long-name")
        subscription.push(line, capacity: 10)
        let head = try await subscription.read(length: 10)
        let rest = try await subscription.read(length: 4096)
        #expect(head.count == 10 && head + rest == line)
    }

    @Test func aChangeIsUnderAFolderByItsPathOrItsOldPath() {
        var change = WatchChange()
        change.path = "Projects/sub/a.txt"
        #expect(change.isUnder("") && change.isUnder("Projects") && change.isUnder("Projects/sub"))
        #expect(!change.isUnder("Proj") && !change.isUnder("Other"))
        change.oldPath = "Other/a.txt"
        #expect(change.isUnder("Other"), "moved out of Other")
    }

    @Test func eventTypesNameTheKind() {
        #expect(WatchChange.kind(eventType: "ITEM_UPLOAD", sequenceID: "0") == "created")
        #expect(WatchChange.kind(eventType: "ITEM_UPLOAD", sequenceID: "3") == "modified")
        #expect(WatchChange.kind(eventType: "ITEM_TRASH", sequenceID: "1") == "trashed")
        #expect(WatchChange.kind(eventType: "ITEM_DOWNLOAD", sequenceID: "1") == nil)
        #expect(WatchChange.kind(eventType: "TAG_ITEM_CREATE", sequenceID: nil) == "tag_item_create")
    }
}
