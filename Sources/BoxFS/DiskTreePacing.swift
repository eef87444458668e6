/// Which changed listings a write of the tree on disk carries: rewriting a listing costs in proportion to its entries
/// (100,000 entries: 1.3 s to encode and write in a debug build), and a large folder may change every second while
/// uploads land in it. A large listing written lately is deleted on disk instead and written again once due (never
/// left as it was: the position written with the batch would claim changes it lacks). Used on the tree's queue only.
struct DiskTreePacing {
    /// Listings of at least this many entries are paced.
    static let largeListing = 10_000
    /// Seconds between two writes of a large listing, per `largeListing` entries (100,000 entries: 10 s).
    static let secondsPerLargeListing = 1.0

    enum Decision: Equatable {
        /// Write the listing as it is now.
        case write
        /// Delete it on disk (dropped in memory, or a large listing not due: then written later).
        case delete
        /// Nothing (a large listing already deleted on disk and not due yet).
        case skip
    }

    /// Large listings deleted on disk and waiting to be written, whether or not memory changes them again.
    private(set) var deferred: Set<String> = []
    private var lastWritten: [String: ContinuousClock.Instant] = [:]

    /// Every listing was dropped: nothing is deferred any more.
    mutating func droppedAll() {
        deferred = []
        lastWritten = [:]
    }

    /// Every large listing is due (the last write, at the unmount).
    mutating func allDue() {
        lastWritten = [:]
    }

    /// What to do with the listing of `folderID` (`entries` nil: dropped) at `now`.
    mutating func decide(folderID: String, entries: Int?, now: ContinuousClock.Instant) -> Decision {
        guard let entries, entries >= Self.largeListing else {
            deferred.remove(folderID)
            lastWritten[folderID] = nil
            return entries == nil ? .delete : .write
        }
        let interval = Duration.milliseconds(Int64(Double(entries) / Double(Self.largeListing) * Self.secondsPerLargeListing * 1000))
        if let last = lastWritten[folderID], now - last < interval {
            return deferred.insert(folderID).inserted ? .delete : .skip
        }
        lastWritten[folderID] = now
        deferred.remove(folderID)
        return .write
    }
}
