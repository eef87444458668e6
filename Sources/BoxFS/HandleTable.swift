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
    /// A Box file read from Box, opened on `inode` (a rename over the file or an unlink detaches that inode from
    /// the Box id; the handle then keeps reading the version it opened, as POSIX keeps an open file's inode).
    case file(FileReader, inode: UInt64)
    /// One Box version of a file, whatever the file holds now (the control directory's files).
    case pinned(FileReader)
    /// A control folder's entries (`ControlDirectory`).
    case controlDirectory(ControlListing)
    /// A file with local content (`LocalFiles` number); `writable` when opened for writing.
    case local(number: UInt64, writable: Bool)
    /// Bytes fixed at open (the status file).
    case snapshot(Data)
    /// A command file's request and answer (`CommandFile`).
    case command(CommandExchange)
    /// A `boxfs watch` stream (`WatchFile`).
    case watch(WatchHub.Subscription)
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

    /// Every open handle, by number.
    var all: [UInt64: OpenHandle] { handles }

    @discardableResult
    mutating func close(_ number: UInt64) -> OpenHandle? { handles.removeValue(forKey: number) }

    /// The folders open for reading (their listings stay cached: see `InodeTable+Eviction`).
    var openDirectoryInodes: Set<UInt64> {
        Set(handles.values.compactMap { if case .directory(let snapshot) = $0 { snapshot.inode } else { nil } })
    }

    /// The Box files open for reading from Box (their names stay known to the kernel: see `InodeTable+NodeEviction`;
    /// files open with local content are `LocalFiles`).
    var remotelyReadItemIDs: Set<String> {
        Set(handles.values.compactMap { handle -> String? in
            switch handle {
            case .file(let reader, _), .pinned(let reader): reader.file.id
            default: nil
            }
        })
    }

    /// Whether a handle reads Box file `itemID` from Box (no local copy).
    func readsRemotely(itemID: String) -> Bool {
        handles.values.contains { if case .file(let reader, _) = $0 { reader.file.id == itemID } else { false } }
    }

    /// Points every handle reading Box file `itemID` from Box through `inode` (the inode that stands for the file
    /// now) at local file `number` instead; returns how many.
    mutating func moveRemoteReaders(ofItemID itemID: String, onInode inode: UInt64?, toLocal number: UInt64) -> Int {
        var moved = 0
        for (key, handle) in handles {
            guard case .file(let reader, let opened) = handle, reader.file.id == itemID, opened == inode else { continue }
            handles[key] = .local(number: number, writable: false)
            moved += 1
        }
        return moved
    }
}
