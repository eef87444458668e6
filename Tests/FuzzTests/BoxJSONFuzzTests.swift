import CurlHTTP
import Foundation
import Testing

@testable import BoxAPI

extension FuzzTier {
    /// Box JSON decoding: Box's recorded real responses, mutated (bit flips, truncation, splicing,
    /// duplicate keys, deep nesting, huge numbers, odd Unicode) and decoded as every DTO the client
    /// has. Nothing traps; a refusal is a `BoxAPIError` of kind `.decoding` on one line; what is
    /// accepted has the fields the models promise.
    @Suite struct BoxJSONFuzzTests {
        static let recorded: [[UInt8]] = {
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Fixtures/box-api/recorded")
            let files = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String }
                .filter { $0.hasSuffix(".json") }.sorted() ?? []
            return files.compactMap { try? Data(contentsOf: root.appendingPathComponent($0)) }.map { Array($0) }
        }()

        /// JSON fragments spliced in: Box's quirks and what breaks decoders.
        static let fragments: [String] = [
            #""size": 1.2318237429383e+31"#, #""size": "123""#, #""size": -5"#, #""size": 1e400"#, #""id": 12345"#,
            #""id": """#, #""type": "web_link""#, #""type": "file\nx""#, #""part_size": 0"#, #""part_size": -1"#,
            #""created_at": "2012-12-12T10:55:30-08:00""#, #""created_at": "2012-13-45T99:99:99Z""#,
            #""created_at": "line\nbreak""#, #""sha1": "ABCDEF""#, #""next_marker": null"#, #""entries": {}"#,
            #""message": "two\nlines""#, #""context_info": {"conflicts": {"type": "file", "id": "1", "name": "x"}}"#,
            #""\ud800": 1"#, #""name": "\u0000\u202e""#, #""total_count": 99999999999999999999999"#,
        ]

        static func checkAccepted(_ item: BoxItem, _ context: String) throws(Fuzz.Failure) {
            try Fuzz.check(!item.id.isEmpty, "\(context): accepted an item with an empty id")
            try Fuzz.check(item.size >= 0, "\(context): accepted an item of \(item.size) bytes")
            try Fuzz.check(item.sha1.map { $0 == $0.lowercased() } ?? true, "\(context): sha1 not lower-case")
        }

        /// Decodes `bytes` as `type`; answers the value, or nil after checking the refusal is clean.
        static func decode<T: Decodable>(_ type: T.Type, _ bytes: [UInt8]) throws(Fuzz.Failure) -> T? {
            do {
                return try BoxJSON.decode(type, from: Data(bytes), status: 200, request: "GET /fuzz")
            } catch {
                guard case .decoding = error.kind else { throw Fuzz.Failure(description: "\(T.self): kind \(error.kind)") }
                try Fuzz.check(error.description.isOneLine, "\(T.self): a refusal on several lines: \(error.description)")
                return nil
            }
        }

        static func input(_ random: inout FuzzRandom) -> [UInt8] {
            var bytes = random.pick(recorded)
            if random.chance(0.5), let brace = bytes.firstIndex(of: UInt8(ascii: "{")) {
                // A fragment as the first key: it wins over, or duplicates, the recorded one.
                bytes.insert(contentsOf: Array((random.pick(fragments) + ",").utf8), at: brace + 1)
            }
            if random.chance(0.05) {
                let depth = random.int(1_000...100_000)
                bytes = Array(repeating: UInt8(ascii: "["), count: depth) + bytes + Array(repeating: UInt8(ascii: "]"), count: depth)
            }
            return random.chance(0.8) ? random.mutate(bytes, splices: recorded + fragments.map { Array($0.utf8) }) : bytes
        }

        @Test func mutatedBoxResponsesDecodeCleanlyOrAreRefusedCleanly() {
            #expect(Self.recorded.count > 30)
            Fuzz.run("Box JSON", iterations: 1500) { random in
                let bytes = Self.input(&random)
                if let item = try Self.decode(ItemDTO.self, bytes)?.item { try Self.checkAccepted(item, "item") }
                if let page = try Self.decode(ItemPageDTO.self, bytes) {
                    for entry in page.entries { try Self.checkAccepted(entry.item, "listing entry") }
                    try Fuzz.check((page.totalCount ?? 0) >= 0 && (page.offset ?? 0) >= 0, "listing: negative count or offset")
                }
                if let files = try Self.decode(FilesDTO.self, bytes) {
                    for entry in files.entries { try Self.checkAccepted(entry.item, "upload answer") }
                }
                if let user = try Self.decode(UserDTO.self, bytes)?.user {
                    try Fuzz.check(!user.id.isEmpty, "user with an empty id")
                }
                if let session = try Self.decode(UploadSessionDTO.self, bytes)?.session {
                    try Fuzz.check(session.partSize > 0 && session.totalParts >= 0 && session.partsProcessed >= 0,
                                   "upload session with part size \(session.partSize), \(session.totalParts) parts")
                }
                if let part = try Self.decode(UploadedPartDTO.self, bytes)?.part {
                    try Fuzz.check(part.offset >= 0 && part.size > 0, "part at \(part.offset) of \(part.size) bytes")
                }
                if let parts = try Self.decode(UploadPartsPageDTO.self, bytes) {
                    for part in parts.entries.map(\.part) {
                        try Fuzz.check(part.offset >= 0 && part.size > 0, "listed part at \(part.offset) of \(part.size) bytes")
                    }
                }
                // An error answer: whatever its body and headers, one line that names no body bytes beyond its fields.
                let response = HTTPResponse(
                    status: random.pick([400, 401, 403, 404, 409, 412, 429, 500, 503]),
                    headers: HTTPHeaders([
                        ("WWW-Authenticate", random.mutate(#"Bearer realm="Service", error="invalid_token", error_description="x""#)),
                        ("Retry-After", random.mutate("30")), ("box-request-id", random.oddString()),
                    ]),
                    body: Data(bytes), effectiveURL: "https://api.box.com/2.0/fuzz")
                let error = BoxAPIError(response: response, request: "GET /fuzz")
                try Fuzz.check(error.description.isOneLine, "an error answer on several lines: \(error.description)")
            }
        }

        /// Regression: these were accepted, though no model can hold them.
        @Test func impossibleValuesAreRefused() throws {
            let negative = #"{"type": "file", "id": "1", "name": "a", "size": -5}"#
            #expect(throws: BoxAPIError.self) { try BoxJSON.decode(ItemDTO.self, from: Data(negative.utf8)) }
            let emptyID = #"{"type": "file", "id": "", "name": "a"}"#
            #expect(throws: BoxAPIError.self) { try BoxJSON.decode(ItemDTO.self, from: Data(emptyID.utf8)) }
            let noParts = #"{"id": "s", "part_size": 0, "session_endpoints": {"upload_part": "u", "commit": "c", "list_parts": "l"}}"#
            #expect(throws: BoxAPIError.self) { try BoxJSON.decode(UploadSessionDTO.self, from: Data(noParts.utf8)) }
        }

        /// Regression: a field's value was quoted raw into the error, so a line break in it split the log line.
        @Test func aRefusalQuotingAValueStaysOnOneLine() {
            let body = #"{"type": "file\nwith a break", "id": "1", "name": "a"}"#
            do {
                _ = try BoxJSON.decode(ItemDTO.self, from: Data(body.utf8))
                Issue.record("accepted an unknown type")
            } catch {
                #expect(error.description.isOneLine, "\(error.description)")
            }
        }
    }
}
