import Foundation

/// `Files`: `{total_count, entries: [File]}`, the answer of uploads and commits.
struct FilesDTO: Decodable {
    var entries: [ItemDTO]
}

/// Box's `UploadSession`.
struct UploadSessionDTO: Decodable {
    var session: UploadSession

    private enum CodingKeys: String, CodingKey {
        case id
        case partSize = "part_size"
        case totalParts = "total_parts"
        case partsProcessed = "num_parts_processed"
        case expiresAt = "session_expires_at"
        case endpoints = "session_endpoints"
    }

    private enum EndpointKeys: String, CodingKey {
        case uploadPart = "upload_part"
        case commit, abort
        case listParts = "list_parts"
        case status
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let endpoints = try c.nestedContainer(keyedBy: EndpointKeys.self, forKey: .endpoints)
        let uploadPart = try endpoints.decode(String.self, forKey: .uploadPart)
        session = UploadSession(
            id: try c.decodeID(forKey: .id),
            partSize: try c.decodeLenientInt64(forKey: .partSize, atLeast: 1),
            totalParts: Int(try c.decodeLenientInt64IfPresent(forKey: .totalParts) ?? 0),
            partsProcessed: Int(try c.decodeLenientInt64IfPresent(forKey: .partsProcessed) ?? 0),
            expiresAt: try c.decodeDateIfPresent(forKey: .expiresAt),
            uploadPartURL: uploadPart,
            commitURL: try endpoints.decode(String.self, forKey: .commit),
            abortURL: try endpoints.decodeIfPresent(String.self, forKey: .abort) ?? uploadPart,
            listPartsURL: try endpoints.decode(String.self, forKey: .listParts),
            statusURL: try endpoints.decodeIfPresent(String.self, forKey: .status) ?? uploadPart)
    }
}

/// Box's `UploadPart`: `{part_id, offset, size, sha1}`.
struct UploadPartDTO: Decodable {
    var part: UploadPart

    private enum CodingKeys: String, CodingKey {
        case partID = "part_id"
        case offset, size, sha1
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        part = UploadPart(
            partID: try c.decodeID(forKey: .partID),
            offset: try c.decodeLenientInt64(forKey: .offset),
            size: try c.decodeLenientInt64(forKey: .size, atLeast: 1),
            sha1: try c.decodeIfPresent(String.self, forKey: .sha1)?.lowercased())
    }
}

/// The answer of a part PUT: `{"part": {...}}` per the spec and recorded response; the guide shows
/// the part unwrapped, so both are accepted.
struct UploadedPartDTO: Decodable {
    var part: UploadPart

    private enum CodingKeys: String, CodingKey { case part }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if c.contains(.part) {
            part = try c.decode(UploadPartDTO.self, forKey: .part).part
        } else {
            part = try UploadPartDTO(from: decoder).part
        }
    }
}

/// One page of `GET /files/upload_sessions/{id}/parts`.
struct UploadPartsPageDTO: Decodable {
    var entries: [UploadPartDTO]
    var totalCount: Int64?

    private enum CodingKeys: String, CodingKey {
        case entries
        case totalCount = "total_count"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        entries = try c.decode([UploadPartDTO].self, forKey: .entries)
        totalCount = try c.decodeLenientInt64IfPresent(forKey: .totalCount)
    }
}

/// `UploadUrl`: `{upload_url, upload_token}` from the preflight.
struct UploadURLDTO: Decodable {
    var uploadURL: String?
    var uploadToken: String?

    private enum CodingKeys: String, CodingKey {
        case uploadURL = "upload_url"
        case uploadToken = "upload_token"
    }
}
