import BoxAPI
import Foundation
import Synchronization

/// Reads one open Box file with HTTP range requests: only the bytes asked for, plus a read-ahead
/// window that grows while the reading is sequential.
///
/// Fetched ranges are kept as in-flight or finished tasks (`Chunk`s). At most `maxChunks` are kept,
/// so memory per handle stays below `maxChunks × ReadAheadWindow.maximum`. Concurrent reads of the
/// same bytes share one fetch.
final class FileReader: Sendable {
    struct Chunk {
        let range: Range<Int64>
        let data: Task<Data, any Error>
        var lastUsed: UInt64
    }

    struct State {
        var window = ReadAheadWindow()
        var chunks: [Chunk] = []
        var clock: UInt64 = 0
    }

    static let maxChunks = 4

    let fileID: String
    let size: Int64
    private let client: BoxClient
    private let state = Mutex(State())

    init(fileID: String, size: Int64, client: BoxClient) {
        self.fileID = fileID
        self.size = size
        self.client = client
    }

    deinit {
        state.withLock { $0.chunks.forEach { $0.data.cancel() } }
    }

    /// Up to `length` bytes at `offset`; fewer only at the end of the file.
    func read(offset: Int64, length: Int) async throws -> Data {
        let end = min(offset + Int64(length), size)
        guard offset < end else { return Data() }
        var result = Data(capacity: Int(end - offset))
        var position = offset
        while position < end {
            let chunk = chunk(covering: position, wanted: end - position)
            let data = try await chunk.data.value
            let from = Int(position - chunk.range.lowerBound)
            let to = Int(min(end, chunk.range.upperBound) - chunk.range.lowerBound)
            guard from < to, to <= data.count else { throw FSError(EIO, "short read from Box for file \(fileID)") }
            result.append(data[data.startIndex + from..<data.startIndex + to])
            position += Int64(to - from)
        }
        return result
    }

    /// Finds the chunk holding `position`, or starts a fetch sized by the read-ahead window; while the
    /// reading is sequential and has passed the middle of its chunk, also starts the next one.
    private func chunk(covering position: Int64, wanted: Int64) -> Chunk {
        let client = self.client, fileID = self.fileID, size = self.size
        func fetch(_ range: Range<Int64>) -> Task<Data, any Error> {
            Task { try await client.download(fileID: fileID, range: range) }
        }
        return state.withLock { state in
            state.clock += 1
            let sequential = state.window.isSequential(position)
            state.window.record(offset: position, length: wanted)
            let found: Chunk
            if let index = state.chunks.firstIndex(where: { $0.range.contains(position) }) {
                state.chunks[index].lastUsed = state.clock
                found = state.chunks[index]
            } else {
                let upper = min(size, position + max(wanted, state.window.size))
                found = Chunk(range: position..<upper, data: fetch(position..<upper), lastUsed: state.clock)
                state.chunks.append(found)
            }
            let pastMiddle = position - found.range.lowerBound >= Int64(found.range.count / 2)
            let next = found.range.upperBound
            if sequential, pastMiddle, next < size, !state.chunks.contains(where: { $0.range.contains(next) }) {
                let upper = min(size, next + state.window.size)
                state.chunks.append(Chunk(range: next..<upper, data: fetch(next..<upper), lastUsed: state.clock))
            }
            while state.chunks.count > Self.maxChunks {
                let oldest = state.chunks.indices.min { state.chunks[$0].lastUsed < state.chunks[$1].lastUsed }!
                state.chunks.remove(at: oldest)  // a reader awaiting it still gets its bytes
            }
            return found
        }
    }
}
