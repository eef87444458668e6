import BoxAPI

/// Memory that follows the working set: listings of folders the kernel no longer holds (a few seconds after it
/// forgot them, so a folder forgotten only because the mount invalidated its name keeps its listing when it is
/// looked up again at once), and the least recently used listings past the budget (`listing_cache_entries`), are
/// dropped (see `FileSystem+ListingEviction`).
///
/// Why this is safe: a listing is a cache of Box's answer. Every path that reads one lists the folder again
/// when it is missing, and the mount's own changes live elsewhere while they matter (local files in `LocalFiles`,
/// changes racing a fetch in `OwnChanges`); the caller keeps those folders' listings, and those of open
/// directory handles (`rememberEntry` tells a renamed entry from one Box never listed by the folder's listing).
extension InodeTable {
    /// Drops the listing of `folderID` from memory (the tree on disk keeps it when it can, `ListingCache.evict`);
    /// answers how many entries it held.
    mutating func evictListing(of folderID: String) -> Int {
        listings.evict(folderID)
    }

    /// The kernel forgot the node of folder `folderID`: its listing is dropped by `evictForgottenListings` unless
    /// the kernel looks the folder up again meanwhile. Answers whether it is the first folder waiting so.
    mutating func noteForgotten(folderID: String, at now: ContinuousClock.Instant) -> Bool {
        guard listings[folderID] != nil else { return false }
        forgottenFolders[folderID] = now
        return forgottenFolders.count == 1
    }

    /// Drops the listings of the folders forgotten at `cutoff` or before and not looked up since, except those
    /// `pinned` says to keep; answers how many entries were dropped and whether folders are still waiting.
    mutating func evictForgottenListings(
        forgottenBy cutoff: ContinuousClock.Instant, keeping pinned: (String) -> Bool
    ) -> (dropped: Int, waiting: Bool) {
        var dropped = 0
        for (folderID, forgottenAt) in forgottenFolders {
            if inodeByID[.box(folderID)] != nil {
                forgottenFolders[folderID] = nil  // held again
            } else if forgottenAt <= cutoff {
                forgottenFolders[folderID] = nil
                if !pinned(folderID) { dropped += evictListing(of: folderID) }
            }
        }
        if forgottenFolders.isEmpty { forgottenFolders = [:] }  // its room too
        return (dropped, !forgottenFolders.isEmpty)
    }

    /// Drops the least recently used listings, except those `pinned` says to keep, until the cached listings
    /// hold at most `target` entries; answers how many entries were dropped.
    mutating func evictListings(downTo target: Int, keeping pinned: (String) -> Bool) -> Int {
        guard listings.entryCount > target else { return 0 }
        var dropped = 0
        for folderID in listings.leastRecentlyUsedFirst() {
            guard listings.entryCount > target else { break }
            if pinned(folderID) { continue }
            dropped += evictListing(of: folderID)
        }
        return dropped
    }

    /// Builds `nodes` and `inodeByID` again at their size once three quarters of their room is empty (after
    /// the kernel forgot most inodes, as under memory pressure or `drop_caches`). Each rebuild costs as many
    /// steps as the entries left and happens only after at least twice as many left: amortised constant.
    mutating func compactNodeIndexes() {
        if nodes.capacity > Self.compactionFloor, nodes.count < nodes.capacity / 4 {
            nodes = Dictionary(uniqueKeysWithValues: nodes.map { ($0.key, $0.value) })
        }
        if inodeByID.capacity > Self.compactionFloor, inodeByID.count < inodeByID.capacity / 4 {
            inodeByID = Dictionary(uniqueKeysWithValues: inodeByID.map { ($0.key, $0.value) })
        }
    }

    /// Smaller indexes are never rebuilt: what they could give back is not worth the work.
    private static let compactionFloor = 4096
}
