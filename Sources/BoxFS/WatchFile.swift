import Foundation

/// `boxfs watch`: every folder of the mount answers one more unlisted name, `<folder>/.boxfs\watch`. Opened
/// read-only (also on a read-only mount), it is a stream: each read waits until Box's event stream has reported
/// a change at or below the folder, then answers whole lines, one JSON `WatchChange` each.
///
/// Why this shape: the watcher adds nothing to what the mount asks Box. The mount's one event follower
/// (`EventFollower`) hands each page it applies, once deduplicated (`SeenEvents`), to every open watch file
/// (`WatchHub.publish`); no watcher makes an `/events` call. The kernel resolves the folder as for the other
/// commands (`CommandFile`); only the mount's owner may open the file (0400, `default_permissions`); a read is
/// answered EINTR as soon as its reader is interrupted (Ctrl-C), and the release ends the subscription.
///
/// A watcher that reads slowly never holds up the follower: each has a buffer of `WatchHub.capacity` lines, and
/// what does not fit is counted and said in one `{"dropped":N}` line where the gap is.
///
/// Inodes: `CommandFile`'s range (bit 61) with bit 59 set, the folder's inode below.
public enum WatchFile {
    public static let name = ".boxfs\\watch"

    private static let flag: UInt64 = (1 << 61) | (1 << 59)
    private static let mask: UInt64 = (0b111 << 61) | (1 << 60) | (1 << 59)

    static func inode(folder: UInt64) -> UInt64 { flag | folder }

    /// The folder a watch file's inode names; nil for any other inode.
    static func folder(of inode: UInt64) -> UInt64? { inode & mask == flag ? inode & ~mask : nil }

    /// Whether `inode` is in the watch files' range (kept out of `CommandFile`'s).
    static func isWatch(_ inode: UInt64) -> Bool { inode & mask == flag }
}

/// One change Box reported, as `boxfs watch` prints it; or, with only `dropped` set, how many changes a slow reader
/// missed at that point. Paths are relative to the mount's root (`""` is the root), with `/` between names.
public struct WatchChange: Codable, Sendable, Equatable {
    /// Where the item is (for `trashed` and `deleted`: where it was).
    public var path: String?
    /// `created`, `modified`, `renamed`, `moved`, `trashed`, `deleted`, `restored`, `copied`, `locked`,
    /// `unlocked`, `shared`, `unshared`, or Box's event type in lower case for any other.
    public var kind: String?
    /// `renamed` and `moved`: where the item was, when the mount knew.
    public var oldPath: String?
    public var byName: String?
    public var byLogin: String?
    /// When Box says the change happened.
    public var at: Date?
    public var itemID: String?
    /// `file` or `folder`.
    public var itemType: String?
    public var eventID: String?
    /// Box's own name for the event (`ITEM_UPLOAD`, ...).
    public var eventType: String?
    /// The mount already showed what the event reports: its own change (an upload, a rename, a move, a new folder)
    /// coming back through the stream. Not set for the mount's own deletes, which it cannot tell apart.
    public var thisMount: Bool?
    /// Changes left out here because the reader was too slow.
    public var dropped: Int?

    public init() {}

    /// The printed kind of a Box event type; nil for events that change nothing (downloads, previews, sync
    /// marks, comments and tasks, which carry no file or folder as their source anyway).
    public static func kind(eventType: String, sequenceID: String?) -> String? {
        switch eventType {
        case "ITEM_CREATE": return "created"
        // A new file starts at sequence 0; each change after counts up (a new version is one of them).
        case "ITEM_UPLOAD": return sequenceID == nil || sequenceID == "0" ? "created" : "modified"
        case "ITEM_COPY": return "copied"
        case "ITEM_RENAME": return "renamed"
        case "ITEM_MOVE": return "moved"
        case "ITEM_TRASH": return "trashed"
        case "ITEM_DELETE": return "deleted"
        case "ITEM_UNDELETE_VIA_TRASH": return "restored"
        case "ITEM_MAKE_CURRENT_VERSION", "ITEM_MODIFY": return "modified"
        case "LOCK_CREATE": return "locked"
        case "LOCK_DESTROY": return "unlocked"
        case "ITEM_SHARED_CREATE", "ITEM_SHARED_UPDATE": return "shared"
        case "ITEM_SHARED_UNSHARE": return "unshared"
        case "ITEM_DOWNLOAD", "ITEM_PREVIEW", "ITEM_SYNC", "ITEM_UNSYNC": return nil
        default: return eventType.lowercased()
        }
    }

    /// Whether the change is at or below `folder` (a mount-relative path, `""` for the root), by its path or its
    /// old path.
    public func isUnder(_ folder: String) -> Bool {
        [path, oldPath].contains { candidate in
            guard let candidate else { return false }
            return folder.isEmpty || candidate == folder || candidate.hasPrefix(folder + "/")
        }
    }
}

/// The open watch files of a mount and what they have not read yet.
final class WatchHub: Sendable {
    /// Lines kept for a reader before further changes are dropped (and counted).
    static let capacity = 1000

    final class Subscription: Sendable {
        let folder: UInt64
        private struct State {
            var lines: [Data] = []
            var dropped = 0
            var closed = false
            var waiter: CheckedContinuation<Void, Never>?
        }

        private let state = OwnLock("a watcher's lines", State())

        init(folder: UInt64) { self.folder = folder }

        /// Adds a line, or counts it as dropped when `capacity` lines wait; wakes the reader.
        func push(_ line: Data, capacity: Int) {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard !state.closed else { return nil }
                if state.lines.count >= capacity {
                    state.dropped += 1
                } else {
                    if state.dropped > 0 {
                        state.lines.append(WatchHub.droppedLine(state.dropped))
                        state.dropped = 0
                    }
                    state.lines.append(line)
                }
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }

        /// Ends every read: the next answers end of file.
        func close() {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                state.closed = true
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }

        /// Waits for lines and answers as many whole ones as fit in `length` bytes (a line longer than `length` is
        /// cut, its rest answered next); empty at close. Throws `.interrupted` when the reader is.
        func read(length: Int) async throws(FSError) -> Data {
            while true {
                if let lines = take(length: length) { return lines }
                if Task.isCancelled { throw FSError(.interrupted, "boxfs watch: the reader was interrupted") }
                await withTaskCancellationHandler {
                    await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                        let resumeNow = state.withLock { state -> Bool in
                            if !state.lines.isEmpty || state.dropped > 0 || state.closed || Task.isCancelled { return true }
                            state.waiter = waiter
                            return false
                        }
                        if resumeNow { waiter.resume() }
                    }
                } onCancel: {
                    let waiter = state.withLock { state in defer { state.waiter = nil }; return state.waiter }
                    waiter?.resume()
                }
            }
        }

        /// What a read answers now; nil: nothing yet (wait).
        private func take(length: Int) -> Data? {
            state.withLock { state -> Data? in
                if state.lines.isEmpty, state.dropped > 0 {
                    state.lines.append(WatchHub.droppedLine(state.dropped))
                    state.dropped = 0
                }
                if state.lines.isEmpty { return state.closed ? Data() : nil }
                var answer = Data()
                while let first = state.lines.first, answer.count + first.count <= length {
                    answer.append(first)
                    state.lines.removeFirst()
                }
                if answer.isEmpty, let first = state.lines.first {
                    answer = first.prefix(length)
                    state.lines[0] = first.dropFirst(length)
                }
                return answer
            }
        }
    }

    private let subscriptions = OwnLock<[ObjectIdentifier: Subscription]>("the open watch files", [:])
    /// Where each item was last seen by a change shown (for a later rename's or move's old path), kept while some
    /// watcher is open and at most `remembered` items.
    private let lastPaths = OwnLock<[String: String]>("the paths watchers last saw", [:])
    static let remembered = 20_000

    init() {}

    func subscribe(folder: UInt64) -> Subscription {
        let subscription = Subscription(folder: folder)
        subscriptions.withLock { $0[ObjectIdentifier(subscription)] = subscription }
        return subscription
    }

    func unsubscribe(_ subscription: Subscription) {
        subscription.close()
        let none = subscriptions.withLock { all in
            all[ObjectIdentifier(subscription)] = nil
            return all.isEmpty
        }
        if none { lastPaths.withLock { $0.removeAll() } }
    }

    /// Ends every watcher's stream (the mount is going away).
    func closeAll() {
        for subscription in subscriptions.withLock({ $0.values }) { subscription.close() }
    }

    var isEmpty: Bool { subscriptions.withLock { $0.isEmpty } }

    var all: [Subscription] { subscriptions.withLock { Array($0.values) } }

    func lastPath(of itemID: String) -> String? { lastPaths.withLock { $0[itemID] } }

    func remember(_ itemID: String, at path: String?) {
        lastPaths.withLock { paths in
            if paths.count >= Self.remembered { paths.removeAll() }
            paths[itemID] = path
        }
    }

    static func line(_ change: WatchChange) -> Data? {
        guard var data = try? CommandFile.encoder.encode(change) else { return nil }
        data.append(UInt8(ascii: "\n"))
        return data
    }

    static func droppedLine(_ count: Int) -> Data {
        var change = WatchChange()
        change.dropped = count
        return line(change) ?? Data("{\"dropped\":\(count)}\n".utf8)
    }
}
