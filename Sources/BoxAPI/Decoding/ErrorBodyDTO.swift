/// Box's `ClientError` body. Every field is optional: 401s often come with an empty body, and a
/// proxy in between may answer with HTML.
struct ErrorBodyDTO: Decodable {
    var status: Int?
    var code: String?
    var message: String?
    var requestID: String?
    var conflicts: [BoxItem]

    private enum CodingKeys: String, CodingKey {
        case status, code, message
        case requestID = "request_id"
        case contextInfo = "context_info"
    }

    private enum ContextKeys: String, CodingKey {
        case conflicts
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        status = try? c.decodeIfPresent(Int.self, forKey: .status)
        code = try? c.decodeIfPresent(String.self, forKey: .code)
        message = try? c.decodeIfPresent(String.self, forKey: .message)
        requestID = try? c.decodeIfPresent(String.self, forKey: .requestID)
        let context = try? c.nestedContainer(keyedBy: ContextKeys.self, forKey: .contextInfo)
        let decoded = try? context?.decodeIfPresent(OneOrMany<ItemDTO>.self, forKey: .conflicts)
        conflicts = decoded?.elements.map(\.item) ?? []
    }
}
