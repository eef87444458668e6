/// `GET /2.0/events` pages, the `OPTIONS /2.0/events` realtime server list and the long poll's message.
/// Sources that are not files or folders (collaborations, users, web links, ...) give an event without an
/// item, never an error; an entry that is not an event object at all is skipped.
struct EventPageDTO: Decodable {
    var page: BoxEventPage

    private enum CodingKeys: String, CodingKey {
        case entries
        case nextStreamPosition = "next_stream_position"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let entries = try c.decodeIfPresent([LenientEventDTO].self, forKey: .entries) ?? []
        page = BoxEventPage(
            events: entries.compactMap(\.event), nextStreamPosition: try c.decodeStreamPosition(forKey: .nextStreamPosition))
    }
}

/// One entry; nil `event` when it cannot be read as one.
struct LenientEventDTO: Decodable {
    var event: BoxEvent?

    private enum CodingKeys: String, CodingKey {
        case source
        case eventID = "event_id"
        case eventType = "event_type"
        case createdAt = "created_at"
        case createdBy = "created_by"
    }

    private enum SourceKeys: String, CodingKey {
        case type
        case itemStatus = "item_status"
        case pathCollection = "path_collection"
    }

    init(from decoder: any Decoder) throws {
        guard let c = try? decoder.container(keyedBy: CodingKeys.self),
              let type = try? c.decode(String.self, forKey: .eventType)
        else { return }
        var item: BoxItem?
        var status: String?
        var path: [BoxPathEntry]?
        if let source = try? c.nestedContainer(keyedBy: SourceKeys.self, forKey: .source),
           let kind = try? source.decode(String.self, forKey: .type), kind == "file" || kind == "folder" {
            item = try? c.decode(ItemDTO.self, forKey: .source).item
            status = try? source.decodeIfPresent(String.self, forKey: .itemStatus)
            if source.contains(.pathCollection) {
                path = (try? c.decode(ItemWithPathDTO.self, forKey: .source))?.value.pathCollection
            }
        }
        var decoded = BoxEvent(eventID: try? c.decodeIfPresent(String.self, forKey: .eventID), eventType: type, item: item,
                               itemStatus: status)
        decoded.createdAt = try? c.decodeDateIfPresent(forKey: .createdAt)
        decoded.createdBy = (try? c.decodeIfPresent(UserReferenceDTO.self, forKey: .createdBy))?.user
        decoded.pathCollection = path
        event = decoded
    }
}

struct RealtimeServersDTO: Decodable {
    var servers: [RealtimeServer]

    private enum CodingKeys: String, CodingKey { case entries }
    private enum EntryKeys: String, CodingKey {
        case type, url
        case maxRetries = "max_retries"
        case retryTimeout = "retry_timeout"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        var entries = try c.nestedUnkeyedContainer(forKey: .entries)
        var servers: [RealtimeServer] = []
        while !entries.isAtEnd {
            let entry = try entries.nestedContainer(keyedBy: EntryKeys.self)
            guard (try? entry.decode(String.self, forKey: .type)) == "realtime_server",
                  let url = try? entry.decode(String.self, forKey: .url)
            else { continue }
            servers.append(RealtimeServer(
                url: url,
                maxRetries: Int(try entry.decodeLenientInt64IfPresent(forKey: .maxRetries) ?? 10),
                retryTimeout: Int(try entry.decodeLenientInt64IfPresent(forKey: .retryTimeout) ?? 610)))
        }
        self.servers = servers
    }
}

struct LongPollMessageDTO: Decodable {
    var message: String
}

extension KeyedDecodingContainer {
    /// A stream position: an integer or a numeric string.
    func decodeStreamPosition(forKey key: Key) throws -> String {
        if let number = try? decode(Int64.self, forKey: key) { return String(number) }
        let text = try decode(String.self, forKey: key)
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "not a stream position")
        }
        return text
    }
}
