import BoxAPI
import Foundation
import Transfers

/// A folder's listing frozen when it was opened.
struct DirectorySnapshot: Sendable {
    let inode: UInt64
    let parent: UInt64
    let items: [BoxItem]
}

/// What an open handle refers to.
enum OpenHandle: Sendable {
    case directory(DirectorySnapshot)
    case file(FileReader)
    /// A file with local content (`LocalFiles` number); `writable` when opened for writing.
    case local(number: UInt64, writable: Bool)
    /// Bytes fixed at open (the status file).
    case snapshot(Data)
}

/// Open file and folder handles by number. A value type guarded by the `FileSystem`'s mutex.
struct HandleTable {
    private var handles: [UInt64: OpenHandle] = [:]
    private var next: UInt64 = 1

    mutating func open(_ handle: OpenHandle) -> UInt64 {
        let number = next
        next += 1
        handles[number] = handle
        return number
    }

    func handle(_ number: UInt64) -> OpenHandle? { handles[number] }

    @discardableResult
    mutating func close(_ number: UInt64) -> OpenHandle? { handles.removeValue(forKey: number) }
}
