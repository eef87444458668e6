import CurlHTTP
import Foundation
import Synchronization
import Testing

@testable import BoxAPI

extension FuzzTier {
    /// The client's reading of a download's `Content-Range` (`RangeBodyAdapter`): whatever the server
    /// says, bytes reach the sink only inside the requested range, and a truthful header puts every byte
    /// at its file offset.
    @Suite struct ContentRangeFuzzTests {
        final class Recorder: DownloadSink {
            let pieces = Mutex<[(offset: Int64, bytes: [UInt8])]>([])
            func receive(_ bytes: UnsafeRawBufferPointer, at offset: Int64) -> Bool {
                pieces.withLock { $0.append((offset, Array(bytes))) }
                return true
            }
        }

        /// The content of the remote file at `offset`.
        static func byte(at offset: Int64) -> UInt8 { UInt8(truncatingIfNeeded: (offset &* 2_654_435_761) >> 7) }

        @Test func bytesLandInsideTheRangeAtTheirOffsets() {
            Fuzz.run("download Content-Range") { random in
                let lower = random.chance(0.3) ? Int64(random.int(0...100)) : random.edgyInt64() / 2
                let length = Int64(random.int(1...5000))
                let range = lower..<(lower + length)
                // Where the server's body really starts: usually where asked, sometimes earlier (a 200 from 0).
                let status = random.chance(0.8) ? 206 : 200
                let start = status == 200 ? 0 : max(0, lower - (random.chance(0.2) ? Int64(random.int(0...50)) : 0))
                let bodyLength = random.int(0...6000)
                let truthful = "bytes \(start)-\(start + Int64(max(bodyLength, 1)) - 1)/\(start + Int64(bodyLength) + 10)"
                var header: String? = truthful
                let honest = status == 200 || random.chance(0.5)
                if !honest {
                    header = random.pick([
                        nil, random.mutate(truthful), "bytes \(random.edgyInt64())-\(random.edgyInt64())/*",
                        "bytes 9223372036854775807-9223372036854775807/*", "bytes -5-10/20", "bytes */100",
                        random.oddString(),
                    ])
                }
                let recorder = Recorder()
                let adapter = RangeBodyAdapter(range: range, sink: recorder)
                adapter.responseStarted(status: status, headers: HTTPHeaders(header.map { [("Content-Range", $0)] } ?? []))
                var sent = 0
                while sent < bodyLength {
                    let count = min(bodyLength - sent, random.int(1...1500))
                    let chunk = (0..<count).map { Self.byte(at: start + Int64(sent + $0)) }
                    _ = chunk.withUnsafeBytes { adapter.receive($0) }
                    sent += count
                }
                let pieces = recorder.pieces.withLock { $0 }
                var delivered: Int64 = 0
                for piece in pieces {
                    let end = piece.offset + Int64(piece.bytes.count)
                    try Fuzz.check(!piece.bytes.isEmpty && range.lowerBound <= piece.offset && end <= range.upperBound,
                                   "header \(header ?? "none"): \(piece.bytes.count) bytes at \(piece.offset), outside \(range)")
                    delivered += Int64(piece.bytes.count)
                    if honest {
                        let wrong = piece.bytes.indices.first { piece.bytes[$0] != Self.byte(at: piece.offset + Int64($0)) }
                        try Fuzz.check(wrong == nil, "header \(truthful): wrong byte at \(piece.offset + Int64(wrong ?? 0))")
                    }
                }
                try Fuzz.check(adapter.delivered == delivered, "delivered \(adapter.delivered), the sink got \(delivered)")
                if honest {
                    let want = max(0, min(range.upperBound, start + Int64(bodyLength)) - max(range.lowerBound, start))
                    try Fuzz.check(delivered == want, "header \(truthful): delivered \(delivered) of \(want) bytes")
                }
            }
        }

        /// Regression: a first byte near Int64.max overflowed the offset arithmetic (a trap in the mount daemon).
        @Test func aFirstByteNearInt64MaxDeliversNothingAndDoesNotTrap() {
            let recorder = Recorder()
            let adapter = RangeBodyAdapter(range: 0..<100, sink: recorder)
            adapter.responseStarted(status: 206, headers: ["Content-Range": "bytes 9223372036854775807-9223372036854775807/*"])
            let body = [UInt8](repeating: 7, count: 64)
            #expect(body.withUnsafeBytes { adapter.receive($0) })
            #expect(adapter.delivered == 0)
        }
    }
}
