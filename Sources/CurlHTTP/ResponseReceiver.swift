#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import SystemCalls

/// Collects the response head from curl's header lines and routes body bytes to memory or a descriptor.
///
/// A status line starts a new response (a `100 Continue`, or a redirect curl follows), which resets
/// headers and body, so what remains describes the final response. Driver thread only.
///
/// A large 2xx body with a `Content-Length` is received into a buffer from `ReceiveBufferPool`
/// (reused memory, no page faults); others, and a body that outgrows its declared length, go to an
/// ordinary `Data`.
struct ResponseReceiver {
    /// Largest buffer reserved up front from a `Content-Length` (a bogus huge value must not allocate).
    static let maxReservation: Int64 = 1 << 30

    let destination: HTTPResponseDestination
    let pool: ReceiveBufferPool
    private(set) var status = 0
    private(set) var headers = HTTPHeaders()
    private var body = Data()
    private var pooled: PooledBody?
    private(set) var bytesWritten: Int64 = 0
    private var reserved = false
    private var sinkStarted = false

    init(destination: HTTPResponseDestination, pool: ReceiveBufferPool = .shared) {
        self.destination = destination
        self.pool = pool
    }

    mutating func receiveHeaderLine(_ raw: UnsafeRawBufferPointer) {
        var line = Substring(String(decoding: raw, as: UTF8.self))
        while let last = line.last, last.isNewline {  // "\r\n" is one Character in Swift
            line.removeLast()
        }
        guard !line.isEmpty else { return }  // the blank line ending a head
        if line.contains(where: \.isNewline) {
            // A bare CR inside a line (RFC 9112 §2.2 allows replacing it with a space): no field keeps a
            // line break to carry into a log line or a request.
            line = Substring(String(line.map { $0.isNewline ? " " : $0 }))
        }
        if line.hasPrefix("HTTP/") {
            let parts = line.split(separator: " ", maxSplits: 2)
            status = parts.count >= 2 ? Int(parts[1]) ?? 0 : 0
            headers = HTTPHeaders()
            body = Data()
            pooled = nil
            bytesWritten = 0
            reserved = false
            sinkStarted = false
        } else if line.first == " " || line.first == "\t", let last = headers.fields.last {
            // Obsolete line folding: the line continues the previous field's value.
            headers.remove(name: last.name)
            headers.add(name: last.name, value: last.value + " " + Self.trimmed(line))
        } else if let colon = line.firstIndex(of: ":") {
            headers.add(name: Self.trimmed(line[..<colon]), value: Self.trimmed(line[line.index(after: colon)...]))
        }
    }

    /// Stores a chunk of the body; throws if the destination cannot take it.
    mutating func receiveBody(_ chunk: UnsafeRawBufferPointer) throws(HTTPError) {
        guard !chunk.isEmpty else { return }
        if case .fileDescriptor(let descriptor, let offset) = destination, (200..<300).contains(status) {
            try write(chunk, to: descriptor, at: offset + bytesWritten)
            bytesWritten += Int64(chunk.count)
            return
        }
        if case .sink(let sink) = destination, (200..<300).contains(status) {
            if !sinkStarted {
                sinkStarted = true
                sink.responseStarted(status: status, headers: headers)
            }
            guard sink.receive(chunk) else {
                throw HTTPError(kind: .responseDestination, message: "the body sink refused bytes")
            }
            bytesWritten += Int64(chunk.count)
            return
        }
        if !reserved {
            reserved = true
            // A compressed body's Content-Length counts the bytes on the wire, not the decoded ones received here.
            if headers["Content-Encoding"] == nil, let declared = headers["Content-Length"].flatMap({ Int64($0) }),
                declared > 0
            {
                if (200..<300).contains(status), declared <= Int64(pool.maximumSize) {
                    pooled = PooledBody(pool: pool, expectedCount: Int(declared))
                }
                if pooled == nil { body.reserveCapacity(Int(min(declared, Self.maxReservation))) }
            }
        }
        if let pooled {
            if pooled.append(chunk) { return }
            // More than declared: carry on in ordinary memory.
            body = pooled.copiedData()
            self.pooled = nil
        }
        body.append(chunk.assumingMemoryBound(to: UInt8.self).baseAddress!, count: chunk.count)
    }

    /// Hands the collected body over without leaving a second reference (which would make the caller's
    /// first mutation copy it).
    mutating func takeBody() -> Data {
        if let pooled {
            self.pooled = nil
            return pooled.takeData()
        }
        let taken = body
        body = Data()
        return taken
    }

    private func write(_ chunk: UnsafeRawBufferPointer, to descriptor: Int32, at offset: Int64) throws(HTTPError) {
        do throws(SystemCallError) {
            try Syscall.writeAll(descriptor, chunk, at: offset, path: "the response descriptor")
        } catch {
            throw .system(.responseDestination, "pwrite to the response descriptor failed", errno: error.errno)
        }
    }

    private static func trimmed(_ text: Substring) -> String {
        var text = text
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return String(text)
    }
}
