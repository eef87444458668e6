import Foundation

/// A request body, streamed to curl piece by piece: file ranges are read with `pread` as curl asks
/// for bytes, never loaded whole, so a multipart upload can mix small `Data` parts with a large file.
public enum HTTPBody: Sendable, Hashable {
    case empty
    case data(Data)
    /// `length` bytes of the file at `path`, starting at `offset`.
    case file(path: String, offset: Int64, length: Int64)
    /// The bodies one after another.
    case concatenation([HTTPBody])

    /// Total size in bytes (sent as `Content-Length`).
    public var length: Int64 {
        switch self {
        case .empty: 0
        case .data(let data): Int64(data.count)
        case .file(_, _, let length): length
        case .concatenation(let parts): parts.reduce(0) { $0 + $1.length }
        }
    }

    /// The non-empty leaves, in order.
    public var pieces: [HTTPBody] {
        switch self {
        case .empty: []
        case .data(let data): data.isEmpty ? [] : [self]
        case .file(_, _, let length): length == 0 ? [] : [self]
        case .concatenation(let parts): parts.flatMap(\.pieces)
        }
    }
}

/// Where a response body goes.
public enum HTTPResponseDestination: Sendable, Hashable {
    /// Collected into `HTTPResponse.body`.
    case memory
    /// Written with `pwrite` at `offset` onwards as it arrives; `HTTPResponse.bodyBytesWritten` says how much.
    /// Only a 2xx body goes there: any other status's body (a redirect, Box's JSON error) is kept in memory
    /// so it can be read, and never overwrites the caller's file. The caller keeps ownership of the descriptor.
    case fileDescriptor(Int32, offset: Int64)
    /// Handed to the sink as it arrives (a 2xx body only, as for `.fileDescriptor`); `bodyBytesWritten`
    /// says how much. Two destinations with sinks are equal when they name the same sink object.
    case sink(any HTTPBodySink)

    public static func == (lhs: HTTPResponseDestination, rhs: HTTPResponseDestination) -> Bool {
        switch (lhs, rhs) {
        case (.memory, .memory): true
        case (.fileDescriptor(let a, let x), .fileDescriptor(let b, let y)): a == b && x == y
        case (.sink(let a), .sink(let b)): a === b
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .memory: hasher.combine(0)
        case .fileDescriptor(let descriptor, let offset): hasher.combine(descriptor); hasher.combine(offset)
        case .sink(let sink): hasher.combine(ObjectIdentifier(sink))
        }
    }
}

/// Takes a response body piece by piece as curl receives it, e.g. to make the first bytes of a
/// large download usable before the rest has arrived.
///
/// Called on the client's driver thread, which serves every transfer of the client: keep the work
/// short (copy the bytes, wake whoever waits) and never block.
public protocol HTTPBodySink: AnyObject, Sendable {
    /// A 2xx response starts; its body follows. Called again if the body starts over (a retried request
    /// with the same sink is a new response): bytes received before belong to the earlier response.
    func responseStarted(status: Int, headers: HTTPHeaders)
    /// The next bytes of the body. Return false to abort the transfer (an `HTTPError` of kind
    /// `.responseDestination`).
    func receive(_ bytes: UnsafeRawBufferPointer) -> Bool
}
