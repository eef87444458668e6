import Foundation
import Testing

@testable import BoxSim

extension FuzzTier {
    /// boxsim's streaming `multipart/form-data` parser: generated bodies parse to the parts they were
    /// built from however the bytes are split into reads, and a mutated body gives the same events (or
    /// the same refusal) read whole or in pieces, never a trap.
    @Suite struct MultipartFuzzTests {
        typealias Event = MultipartParser.Event

        /// Consecutive body events joined: how the bytes are split into events is not part of the meaning.
        static func merged(_ events: [Event]) -> [Event] {
            var result: [Event] = []
            for event in events {
                if case .body(let more) = event, case .body(let earlier)? = result.last {
                    result[result.count - 1] = .body(earlier + more)
                } else {
                    result.append(event)
                }
            }
            return result
        }

        /// Feeds `bytes` in reads of random sizes; the events, or nil if the parser refused the body.
        static func feed(_ bytes: [UInt8], contentType: String, random: inout FuzzRandom, whole: Bool)
            -> (events: [Event], complete: Bool)?
        {
            guard var parser = MultipartParser(contentType: contentType) else { return ([], false) }
            var events: [Event] = []
            var offset = 0
            do {
                while offset < bytes.count {
                    let count = whole ? bytes.count : min(bytes.count - offset, random.chance(0.3) ? random.int(1...3) : random.int(1...300))
                    events += try parser.feed(bytes[offset..<(offset + count)])
                    offset += count
                }
            } catch {
                return nil
            }
            return (merged(events), parser.isComplete)
        }

        static let tokenCharacters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'()+_,-./=?")

        @Test func generatedBodiesParseToTheirParts() {
            Fuzz.run("multipart (oracle)", iterations: 600) { random in
                let boundary = String((0..<random.int(1...70)).map { _ in random.pick(Self.tokenCharacters) })
                let delimiter = Array("\r\n--\(boundary)".utf8)
                // A body may not hold the delimiter; no suffix of a body plus the next delimiter can form
                // one either, as the boundary's characters never include the delimiter's leading CR.
                func free(_ bytes: [UInt8]) -> Bool {
                    bytes.count < delimiter.count || !(0...(bytes.count - delimiter.count)).contains { bytes[$0...].starts(with: delimiter) }
                }
                var body: [UInt8] = []
                var want: [Event] = []
                if random.chance(0.3) { body += Array("preamble \(random.int(0...99))".utf8) }
                for _ in 0..<random.int(0...4) {
                    var headers: [String: String] = [:]
                    var lines = ""
                    for _ in 0..<random.int(0...3) {
                        let name = String((0..<random.int(1...10)).map { _ in random.pick(Array("abcdefXYZ-")) })
                        let value = random.pick(["form-data; name=\"file\"; filename=\"a.txt\"", "text/plain", "x", "a: b"])
                        lines += "\(name)\(random.chance(0.3) ? " " : ""): \(value)\r\n"
                        headers[name.lowercased()] = value
                    }
                    var content = (0..<random.int(0...600)).map { _ in UInt8.random(in: 0...255, using: &random) }
                    if random.chance(0.3) { content += Array("\r\n--\(boundary.dropLast())".utf8) }
                    guard free(content) else { return }
                    body += Array("\r\n--\(boundary)\r\n\(lines)\r\n".utf8) + content
                    want += [.part(headers: headers)] + (content.isEmpty ? [] : [.body(content)]) + [.partEnd]
                }
                body += Array("\r\n--\(boundary)--\r\n".utf8)
                want.append(.end)
                if body.starts(with: Array("\r\n".utf8)) && random.chance(0.5) { body.removeFirst(2) }
                let contentType = "multipart/form-data; boundary=\(random.chance(0.5) ? "\"\(boundary)\"" : boundary)"
                guard let got = Self.feed(body, contentType: contentType, random: &random, whole: false) else {
                    throw Fuzz.Failure(description: "refused a well-formed body with boundary \(boundary)")
                }
                try Fuzz.check(got.complete && got.events == want,
                               "boundary \(boundary): \(got.events.count) events, want \(want.count); complete: \(got.complete)")
            }
        }

        @Test func mutatedBodiesGiveTheSameEventsWholeOrInPieces() {
            let seeds = [
                "--B\r\nContent-Disposition: form-data; name=\"attributes\"\r\n\r\n{\"name\":\"a\",\"parent\":{\"id\":\"0\"}}\r\n"
                    + "--B\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a\"\r\n\r\nhello\r\n--B--\r\n",
                "preamble\r\n--B  \r\n\r\n\r\n--B\r\n\r\nx\r\n--B--",
            ]
            Fuzz.run("multipart (mutations)", iterations: 4000) { random in
                var bytes = random.mutate(Array(random.pick(seeds).utf8), splices: seeds.map { Array($0.utf8) })
                if random.chance(0.05) { bytes += Array(repeating: UInt8(ascii: random.pick(["x", "\r"])), count: random.int(1000...40000)) }
                let contentType = random.chance(0.9) ? "multipart/form-data; boundary=B" : random.mutate("multipart/form-data; boundary=\"B\"")
                let whole = Self.feed(bytes, contentType: contentType, random: &random, whole: true)
                let pieces = Self.feed(bytes, contentType: contentType, random: &random, whole: false)
                switch (whole, pieces) {
                case (nil, nil): break
                case (let a?, let b?):
                    try Fuzz.check(a.events == b.events && a.complete == b.complete,
                                   "\(String(decoding: bytes.prefix(200), as: UTF8.self).debugDescription): whole gives \(a.events.count) events, pieces \(b.events.count)")
                default:
                    throw Fuzz.Failure(description: "\(String(decoding: bytes.prefix(200), as: UTF8.self).debugDescription): refused only when read \(whole == nil ? "whole" : "in pieces")")
                }
            }
        }

        /// Regression: the limits on a delimiter line and on a part's headers held only when the bytes
        /// came in several reads; read at once, any length passed.
        @Test func overlongLinesAreRefusedEvenInOneRead() throws {
            let padding = String(repeating: " ", count: 2000)
            var parser = try #require(MultipartParser(contentType: "multipart/form-data; boundary=B"))
            #expect(throws: MultipartParser.Malformed.self) { try parser.feed(Array("--B\(padding)\r\n\r\nx".utf8)) }
            let header = "X-Long: " + String(repeating: "a", count: 20_000)
            var second = try #require(MultipartParser(contentType: "multipart/form-data; boundary=B"))
            #expect(throws: MultipartParser.Malformed.self) { try second.feed(Array("--B\r\n\(header)\r\n\r\nx".utf8)) }
        }
    }
}
