import Foundation
import Testing

@testable import CurlHTTP

extension FuzzTier {
    /// The response head as curl hands it over, line by line (`ResponseReceiver`): generated heads give
    /// back their status and fields; mutated lines and bodies never trap, and no field ends up with a
    /// line break in its name or value.
    @Suite struct ResponseHeadFuzzTests {
        static let names = ["Content-Type", "Content-Length", "Content-Range", "Retry-After", "WWW-Authenticate",
                            "box-request-id", "Location", "ETag", "X-Odd_Name.1"]

        static func feed(_ lines: [String], body: [UInt8], into receiver: inout ResponseReceiver) throws {
            for line in lines {
                Array(line.utf8).withUnsafeBytes { receiver.receiveHeaderLine($0) }
            }
            try body.withUnsafeBytes { try receiver.receiveBody($0) }
        }

        @Test func generatedHeadsGiveBackTheirStatusAndFields() {
            Fuzz.run("response head (oracle)") { random in
                var lines: [String] = []
                if random.chance(0.3) { lines += ["HTTP/1.1 100 Continue\r\n", "\r\n"] }
                if random.chance(0.2) { lines += ["HTTP/1.1 302 Found\r\n", "Location: https://x/\r\n", "\r\n"] }
                let status = random.pick([200, 201, 204, 206, 302, 400, 404, 429, 500, 503])
                lines.append("HTTP/\(random.pick(["1.1", "2"])) \(status)\(random.chance(0.5) ? " Reason Phrase" : "")\r\n")
                var want: [(String, String)] = []
                for _ in 0..<random.int(0...8) {
                    let name = random.pick(Self.names)
                    let value = random.chance(0.7) ? String(random.edgyInt64()) : random.pick(["bytes 0-9/100", "a, b=\"c\"", "x:y", ""])
                    let spaces = random.pick(["", " ", "  ", "\t"])
                    lines.append("\(name):\(spaces)\(value)\(random.chance(0.2) ? " " : "")\r\n")
                    want.append((name, value))
                }
                lines.append("\r\n")
                var receiver = ResponseReceiver(destination: .memory)
                try Self.feed(lines, body: Array("body".utf8), into: &receiver)
                try Fuzz.check(receiver.status == status, "\(lines): status \(receiver.status), want \(status)")
                let got = receiver.headers.fields.map { "\($0.name): \($0.value)" }
                try Fuzz.check(got == want.map { "\($0.0): \($0.1)" }, "\(lines): fields \(got)")
            }
        }

        @Test func mutatedHeadsNeverTrapNorKeepLineBreaks() {
            let seeds = ["HTTP/1.1 206 Partial Content\r\n", "Content-Length: 10\r\n", "Content-Range: bytes 0-9/10\r\n",
                         "  folded continuation\r\n", "Retry-After: 30\r\n", "\r\n"]
            Fuzz.run("response head (mutations)", iterations: 1000) { random in
                // curl hands over one line at a time, each ending at its LF (a bare CR may be anywhere).
                let text = (0..<random.int(1...10)).map { _ in random.mutate(random.pick(seeds), splices: seeds) }.joined()
                let lines = text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
                    .map { String(decoding: $0, as: UTF8.self) + "\n" }
                let body = (0..<random.int(0...500)).map { _ in UInt8.random(in: 0...255, using: &random) }
                var receiver = ResponseReceiver(destination: .memory)
                do { try Self.feed(lines, body: body, into: &receiver) } catch {
                    throw Fuzz.Failure(description: "a memory destination refused a body: \(error)")
                }
                let taken = receiver.takeBody()
                try Fuzz.check(taken.count == body.count, "\(lines): kept \(taken.count) of \(body.count) body bytes")
                for field in receiver.headers.fields {
                    try Fuzz.check(!field.name.contains(where: \.isNewline) && !field.value.contains(where: \.isNewline),
                                   "\(lines.map(\.debugDescription)): field \(field.name.debugDescription): \(field.value.debugDescription)")
                }
            }
        }
    }
}
