import Foundation

/// One entry of a user's event stream (`GET /2.0/events`), as the filesystem needs it.
public struct BoxEvent: Sendable, Equatable {
    public var eventID: String?
    /// `ITEM_UPLOAD`, `ITEM_RENAME`, `ITEM_TRASH`, ... (any text: unknown types are kept, not rejected).
    public var eventType: String
    /// The file or folder the event is about; nil when the source is something else (a collaboration,
    /// a user, a web link) or missing.
    public var item: BoxItem?
    /// The source's `item_status` (`active`, `trashed`, `deleted`), when it has one.
    public var itemStatus: String?
    /// When the event happened (`created_at`), when sent.
    public var createdAt: Date? = nil
    /// Who made the change (`created_by`), when sent.
    public var createdBy: BoxUserReference? = nil
    /// The folders above the source, from All Files down (`source.path_collection`), when Box sent them.
    public var pathCollection: [BoxPathEntry]? = nil

    public init(eventID: String? = nil, eventType: String, item: BoxItem?, itemStatus: String? = nil) {
        self.eventID = eventID
        self.eventType = eventType
        self.item = item
        self.itemStatus = itemStatus
    }

    /// The item is gone from its folder (trashed or deleted).
    public var removesItem: Bool {
        ["ITEM_TRASH", "ITEM_DELETE"].contains(eventType) || (itemStatus.map { $0 != "active" } ?? false)
    }
}

/// One page of events and where the stream goes on from.
public struct BoxEventPage: Sendable, Equatable {
    public var events: [BoxEvent]
    /// The `stream_position` to ask for next (Box sends a number or a numeric string; kept as text).
    public var nextStreamPosition: String
}

/// Where to long-poll for news of the event stream (`OPTIONS /2.0/events`).
public struct RealtimeServer: Sendable, Equatable {
    /// Absolute URL; the caller adds `stream_position`.
    public var url: String
    /// How many times the URL may be polled before asking for a new one.
    public var maxRetries: Int
    /// Seconds the server holds a poll before answering `reconnect`.
    public var retryTimeout: Int
}

/// What a long poll answered.
public enum LongPollResult: Sendable, Equatable {
    /// The stream has events after the position polled.
    case newChange
    /// Nothing happened within the server's timeout (or the channel is unknown): poll again.
    case reconnect
    /// Any other message.
    case other(String)
}
