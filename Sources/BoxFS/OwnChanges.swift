import BoxAPI

/// The mount's own changes to folder listings, numbered, kept while a listing fetch that started
/// before them may still land.
///
/// Why: a listing request can be answered by Box before an upload, rename or delete this mount made
/// meanwhile reached it, and is stored after the mount has applied that change to its cache. Storing
/// it as is would undo the change (an older size, a deleted file back, a renamed one under its old
/// name) until the next listing. So every fetch notes the sequence number when it starts, and the
/// changes numbered after that are replayed over what it brings. Changes older than every fetch in
/// flight are dropped: no listing that could miss them is still coming. A value type inside
/// `InodeTable`, guarded by its mutex.
struct OwnChanges {
    enum Change {
        /// Put the item in the folder, replacing an entry with the same id or name.
        case upsert(BoxItem)
        /// Take the item with this id out of the folder.
        case remove(id: String)
    }

    private struct Entry {
        let sequence: UInt64
        let folderID: String
        let change: Change
    }

    private var sequence: UInt64 = 0
    private var entries: [Entry] = []
    /// The starting sequence of each listing fetch in flight (one element per fetch).
    private var fetchesInFlight: [UInt64] = []

    /// A listing fetch is about to ask Box: answers the number to hand to `replay` and `endFetch`.
    mutating func beginFetch() -> UInt64 {
        fetchesInFlight.append(sequence)
        return sequence
    }

    /// The fetch that began at `start` is over (stored or failed).
    mutating func endFetch(_ start: UInt64) {
        if let index = fetchesInFlight.firstIndex(of: start) { fetchesInFlight.remove(at: index) }
        guard let oldest = fetchesInFlight.min() else {
            entries.removeAll()
            return
        }
        entries.removeAll { $0.sequence <= oldest }
    }

    /// The starting number of the oldest listing fetch in flight, nil when none is.
    var oldestFetchInFlight: UInt64? { fetchesInFlight.min() }

    /// The number of the last change noted (or mark made): it moves at every change to a listing the mount makes,
    /// so a caller holding a listing stored when it read this knows whether the mount changed any since.
    var current: UInt64 { sequence }

    /// A number after every change noted so far (for a change that is not the mount's own: see
    /// `InodeTable.remoteChangeMarks`).
    mutating func mark() -> UInt64 {
        sequence += 1
        return sequence
    }

    /// Notes a change the mount made to `folderID`; nothing is kept while no fetch is in flight.
    mutating func record(_ change: Change, in folderID: String) {
        sequence += 1
        guard !fetchesInFlight.isEmpty else { return }
        entries.append(Entry(sequence: sequence, folderID: folderID, change: change))
    }

    /// Whether a change to `folderID` is kept for a fetch in flight (its listing must then stay: see `InodeTable+Eviction`).
    func holdsChanges(in folderID: String) -> Bool {
        entries.contains { $0.folderID == folderID }
    }

    /// `items`, as fetched by a listing that began at `start`, with the later changes to the folder laid over.
    func replay(on listing: inout InodeTable.Listing, folderID: String, after start: UInt64) {
        for entry in entries where entry.sequence > start && entry.folderID == folderID {
            switch entry.change {
            case .upsert(let item): listing.upsert(item)
            case .remove(let id): listing.remove(id: id)
            }
        }
    }
}
