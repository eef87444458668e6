import Foundation
import XCTest

@testable import BoxAPI

/// Box's recorded event responses (`Events/GetUserEvents.json`, `Events/GetNewEvents.json`) and the shapes
/// the event stream may take decode to what the mount's `EventFollower` needs.
final class RecordedEventDecodingTests: XCTestCase {
    func testGetUserEvents() throws {
        let page = try BoxJSON.decode(EventPageDTO.self, from: RecordedFixtures.data("Events/GetUserEvents.json")).page
        XCTAssertEqual(page.nextStreamPosition, "1348790499819")
        XCTAssertEqual(page.events.count, 1)
        let event = try XCTUnwrap(page.events.first)
        XCTAssertEqual(event.eventID, "f82c3ba03e41f7e8a7608363cc6c0390183c3f83")
        XCTAssertEqual(event.eventType, "ITEM_CREATE")
        XCTAssertEqual(event.itemStatus, "active")
        XCTAssertFalse(event.removesItem)
        let folder = try XCTUnwrap(event.item)
        XCTAssertEqual(folder.kind, .folder)
        XCTAssertEqual(folder.id, "22222")
        XCTAssertEqual(folder.name, "Pictures")
        XCTAssertEqual(folder.etag, "0")
        XCTAssertEqual(folder.sequenceID, "0")
        XCTAssertEqual(folder.parentID, "0")
    }

    func testGetNewEventsIsAReconnect() throws {
        let message = try BoxJSON.decode(LongPollMessageDTO.self, from: RecordedFixtures.data("Events/GetNewEvents.json"))
        XCTAssertEqual(message.message, "reconnect")
    }

    /// A file source with its version and SHA-1, a trashed file, a collaboration (not an item), an unknown
    /// event type, an entry without a source and one that is not an object: each is kept or skipped, never
    /// an error; a position sent as a string is read as one.
    func testSourcesThatAreNotItemsAndUnknownTypesAreTolerated() throws {
        let json = """
            {"chunk_size": 6, "next_stream_position": "1152922976252290886", "entries": [
              {"type": "event", "event_id": "e1", "event_type": "ITEM_UPLOAD", "source": {
                "type": "file", "id": "5000948880", "name": "a.txt", "etag": "3", "sequence_id": "3", "size": 12,
                "sha1": "134B65991ED521FCFE4724B7D814AB8DED5185DC", "file_version": {"type": "file_version", "id": "26261748416"},
                "parent": {"type": "folder", "id": "11446498"}, "item_status": "active"}},
              {"type": "event", "event_id": "e2", "event_type": "ITEM_TRASH", "source": {
                "type": "file", "id": "5000948881", "name": "b.txt", "parent": {"type": "folder", "id": "0"},
                "item_status": "trashed"}},
              {"type": "event", "event_id": "e3", "event_type": "COLLAB_INVITE_COLLABORATOR", "source": {
                "type": "collaboration", "id": "791293", "status": "accepted"}},
              {"type": "event", "event_id": "e4", "event_type": "SOMETHING_NEW", "source": {
                "type": "folder", "id": "77", "name": "f", "parent": null}},
              {"type": "event", "event_id": "e5", "event_type": "ITEM_DOWNLOAD", "source": null},
              "not an event"
            ]}
            """
        let page = try BoxJSON.decode(EventPageDTO.self, from: Data(json.utf8)).page
        XCTAssertEqual(page.nextStreamPosition, "1152922976252290886")
        XCTAssertEqual(page.events.map(\.eventType),
                       ["ITEM_UPLOAD", "ITEM_TRASH", "COLLAB_INVITE_COLLABORATOR", "SOMETHING_NEW", "ITEM_DOWNLOAD"])
        let file = try XCTUnwrap(page.events[0].item)
        XCTAssertEqual(file.sha1, "134b65991ed521fcfe4724b7d814ab8ded5185dc")
        XCTAssertEqual(file.fileVersionID, "26261748416")
        XCTAssertEqual(file.size, 12)
        XCTAssertEqual(file.parentID, "11446498")
        XCTAssertTrue(page.events[1].removesItem)
        XCTAssertNil(page.events[2].item)
        XCTAssertEqual(page.events[3].item?.kind, .folder)
        XCTAssertNil(page.events[3].item?.parentID)
        XCTAssertNil(page.events[4].item)
    }

    func testRealtimeServer() throws {
        let json = """
            {"chunk_size": 1, "entries": [{"type": "realtime_server",
              "url": "http://2.realtime.services.box.net/subscribe?channel=cc807c9c4869ffb1c81a&stream_type=all",
              "ttl": "10", "max_retries": "10", "retry_timeout": 610}]}
            """
        let servers = try BoxJSON.decode(RealtimeServersDTO.self, from: Data(json.utf8)).servers
        XCTAssertEqual(servers, [RealtimeServer(
            url: "http://2.realtime.services.box.net/subscribe?channel=cc807c9c4869ffb1c81a&stream_type=all",
            maxRetries: 10, retryTimeout: 610)])
    }
}
