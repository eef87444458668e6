/// Box's User JSON → `BoxUser`. Quotas are decoded leniently (huge values, IEEE notation).
struct UserDTO: Decodable {
    var user: BoxUser

    private enum CodingKeys: String, CodingKey {
        case id, name, login
        case spaceAmount = "space_amount"
        case spaceUsed = "space_used"
        case maxUploadSize = "max_upload_size"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        user = BoxUser(
            id: try c.decodeID(forKey: .id),
            name: try c.decode(String.self, forKey: .name),
            login: try c.decode(String.self, forKey: .login),
            spaceAmount: try c.decodeLenientInt64(forKey: .spaceAmount, atLeast: .min),
            spaceUsed: try c.decodeLenientInt64(forKey: .spaceUsed, atLeast: .min),
            maxUploadSize: try c.decodeLenientInt64IfPresent(forKey: .maxUploadSize, atLeast: .min))
    }
}
