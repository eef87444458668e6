import BoxAPI
import Foundation
import Testing

@testable import BoxFS

/// Events Box sends again (same `event_id`) are applied once (`SeenEvents`); a saved stream position knows its age.
@Suite struct SeenEventsTests {
    private static func event(_ id: String?) -> BoxEvent {
        BoxEvent(eventID: id, eventType: "ITEM_RENAME", item: BoxItem(id: "9", kind: .file, name: "a.txt", parentID: "0"))
    }

    @Test func anEventSentAgainIsSkippedInThisPageAndTheNext() {
        var seen = SeenEvents()
        let first = seen.unseen([Self.event("a"), Self.event("b"), Self.event("a")])
        #expect(first.map(\.eventID) == ["a", "b"])
        let next = seen.unseen([Self.event("c"), Self.event("b"), Self.event(nil), Self.event(nil)])
        #expect(next.map(\.eventID) == ["c", nil, nil], "b again is skipped; events without an id are all kept")
    }

    @Test func onlyTheLatestIdsAreRemembered() {
        var seen = SeenEvents(capacity: 3)
        _ = seen.unseen(["a", "b", "c", "d"].map { Self.event($0) })
        #expect(seen.unseen([Self.event("a")]).count == 1, "a was the oldest of four: forgotten")
        #expect(seen.unseen([Self.event("d")]).isEmpty, "d is still remembered")
    }

    @Test func aSavedPositionKnowsHowOldItIs() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("position-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: url) }
        let file = EventPositionFile(url: url)
        #expect(file.age() == nil)
        file.save("1234")
        await file.flush()
        let old = Date(timeIntervalSinceNow: -30 * 86_400)
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: url.path)
        let age = try #require(file.age())
        #expect(age > EventFollower.positionTrustedFor, "30 days is past what Box keeps")
        await file.remove()
        #expect(file.read() == nil && file.age() == nil)
    }
}
