#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import SystemCalls

/// Feeds a request body to curl's read callback: `Data` pieces are copied straight into curl's buffer and
/// file ranges are `pread` into it, so nothing is loaded whole. Files are opened when the transfer starts
/// (checking the range exists) and closed when the reader is released. Driver thread only.
final class RequestBodyReader {
    private enum Piece {
        case bytes(Data)
        case file(descriptor: Int32, path: String, offset: Int64, length: Int64)

        var length: Int64 {
            switch self {
            case .bytes(let data): Int64(data.count)
            case .file(_, _, _, let length): length
            }
        }
    }

    private var pieces: [Piece] = []
    let length: Int64
    private var pieceIndex = 0
    private var offsetInPiece: Int64 = 0

    init(body: HTTPBody) throws(HTTPError) {
        length = body.length
        for piece in body.pieces {
            switch piece {
            case .data(let data):
                pieces.append(.bytes(data))
            case .file(let path, let offset, let length):
                let descriptor = try Self.openRange(path: path, needing: offset + length)
                pieces.append(.file(descriptor: descriptor, path: path, offset: offset, length: length))
            case .empty, .concatenation:
                break  // `pieces` yields only non-empty leaves
            }
        }
    }

    deinit {
        for case .file(let descriptor, _, _, _) in pieces {
            Syscall.close(descriptor)
        }
    }

    /// Fills as much of `buffer` as the body has left; 0 means the body is complete.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(HTTPError) -> Int {
        var filled = 0
        while filled < buffer.count, pieceIndex < pieces.count {
            let piece = pieces[pieceIndex]
            let wanted = Int(min(Int64(buffer.count - filled), piece.length - offsetInPiece))
            let target = UnsafeMutableRawBufferPointer(rebasing: buffer[filled..<(filled + wanted)])
            switch piece {
            case .bytes(let data):
                let start = data.startIndex + Int(offsetInPiece)
                data.copyBytes(to: target.bindMemory(to: UInt8.self), from: start..<(start + wanted))
            case .file(let descriptor, let path, let offset, _):
                try Self.readFully(descriptor, path: path, into: target, at: offset + offsetInPiece)
            }
            filled += wanted
            offsetInPiece += Int64(wanted)
            if offsetInPiece == piece.length {
                pieceIndex += 1
                offsetInPiece = 0
            }
        }
        return filled
    }

    /// Moves to absolute body position `position` (curl rewinds to resend on a new connection).
    func seek(to position: Int64) -> Bool {
        guard position >= 0, position <= length else { return false }
        var remaining = position
        pieceIndex = 0
        while pieceIndex < pieces.count, remaining >= pieces[pieceIndex].length {
            remaining -= pieces[pieceIndex].length
            pieceIndex += 1
        }
        offsetInPiece = remaining
        return true
    }

    private static func openRange(path: String, needing end: Int64) throws(HTTPError) -> Int32 {
        let descriptor: Int32, size: Int64
        do throws(SystemCallError) { descriptor = try Syscall.open(path, O_RDONLY) } catch {
            throw .system(.requestBody, "cannot open body file \(path)", errno: error.errno)
        }
        do throws(SystemCallError) { size = try Syscall.size(descriptor, path: path) } catch {
            Syscall.close(descriptor)
            throw .system(.requestBody, "cannot stat body file \(path)", errno: error.errno)
        }
        guard size >= end else {
            Syscall.close(descriptor)
            throw HTTPError(kind: .requestBody, message: "body file \(path) is shorter than the requested range")
        }
        return descriptor
    }

    private static func readFully(
        _ descriptor: Int32, path: String, into target: UnsafeMutableRawBufferPointer, at offset: Int64
    ) throws(HTTPError) {
        let count: Int
        do throws(SystemCallError) { count = try Syscall.readFully(descriptor, into: target, at: offset, path: path) } catch {
            throw .system(.requestBody, "cannot read body file \(path)", errno: error.errno)
        }
        guard count == target.count else {
            throw HTTPError(kind: .requestBody, message: "body file \(path) shrank while it was being sent")
        }
    }
}
