import Synchronization

/// Where the uploader sent content as a new file without the core having applied Box's answer, and the SHA-1s it
/// sent: a file Box may hold there that the mount does not know yet. Until the answer is applied (or the entry's
/// next attempt or its drop settles what Box holds there), a listing must not show that file: the local file may
/// have been renamed away meanwhile, and a file at the old name that the mount does not hold would appear for a
/// moment, then vanish (model seeds 28037, 28168, 30127: an upload stored by Box with its answer cut, then a
/// rename). The journal keeps the same places durably (`sent_place`); this is its in-memory mirror, read by the
/// core's listing overlay without touching SQLite.
///
/// Its lock is a leaf: nothing else is taken while it is held (the core reads it under `locals`).
public final class UnansweredUploads: Sendable {
    private struct Sent {
        var places: Set<SentPlace> = []
        var digests: Set<String> = []
    }

    private let state = Mutex<[Int64: Sent]>([:])

    public init() {}

    /// Whether no place of folder `folderID` is unanswered (the common case: the overlay skips the look).
    public func isEmpty(inFolder folderID: String) -> Bool {
        state.withLock { sent in !sent.values.contains { $0.places.contains { $0.parentID == folderID } } }
    }

    /// Whether a Box file named `name` in `folderID` with this SHA-1 may be what an unanswered upload made.
    public func hides(name: String, sha1: String?, inFolder folderID: String) -> Bool {
        owner(name: name, sha1: sha1, inFolder: folderID) != nil
    }

    /// The entry whose unanswered upload may have made a Box file named `name` in `folderID` with this SHA-1.
    public func owner(name: String, sha1: String?, inFolder folderID: String) -> Int64? {
        guard let sha1 else { return nil }
        let place = SentPlace(parentID: folderID, name: name)
        return state.withLock { sent in
            sent.first { $0.value.places.contains(place) && $0.value.digests.contains(sha1) }?.key
        }
    }

    /// Content with `sha1` goes up for `entryID`, as a new file at `place` when one is given.
    func sending(_ entryID: Int64, sha1: String, to place: SentPlace?) {
        state.withLock { sent in
            sent[entryID, default: Sent()].digests.insert(sha1)
            if let place { sent[entryID, default: Sent()].places.insert(place) }
        }
    }

    /// The entry's places and digests as the journal now has them (after an answer was applied, or on start).
    func mirror(_ entryID: Int64, places: [SentPlace], digests: Set<String>) {
        state.withLock { sent in
            sent[entryID] = places.isEmpty ? nil : Sent(places: Set(places), digests: digests)
        }
    }

    /// The entry left the journal, and what its attempts left on Box was dealt with.
    func drop(_ entryID: Int64) {
        _ = state.withLock { $0.removeValue(forKey: entryID) }
    }
}
