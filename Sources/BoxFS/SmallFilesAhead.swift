import BoxAPI

/// Names the small files whose whole content a walk in listing order (`grep -r`, `cp -r` out, `tar c`) gets fetched
/// ahead of its reads, within a window of at most `maximumFiles` files and `maximumBytes` bytes ahead of the file
/// opened last, and the files whose fetch ahead is to be cancelled.
///
/// Why: `ListingOrderReads` learns the next files' locations, which saves one round trip of the two a small file
/// costs; a walker still waits for each download in turn. With the next few files' content on the wire while the
/// current one is read, a walk of small files goes at the pace of several downloads at once (`BlockStore.fetchAhead`).
///
/// The rule: `ListingOrderReads` says when a folder is being walked (its run of in-order opens is long enough). At
/// each open in that folder, the files the walk has reached or passed leave the window (the one opened is being read;
/// those passed over are cancelled, as is a file opened in another version than the one fetched ahead), and the
/// small files after the opened one, within `lookahead` files of it, join the window in listing order while it has
/// room. Files that are not small (`smallFileLimit`) are passed over: the window never counts them, and the file
/// system learns only their location ahead. An open that ends the walk (out of order) cancels the whole window, and
/// so does a walk that starts in another folder: one window at a time, for the walk the reader is in now.
///
/// A walk that simply stops leaves at most the window fetched beyond it. A plain value: no I/O, no locks (the file
/// system keeps it in a mutex).
struct SmallFilesAhead {
    /// Files fetched ahead at once: enough to keep a walker from waiting on a 50 ms path (each fetch takes one round
    /// trip when its location was learnt ahead, the reader takes ~1 ms a file), few enough to leave most of the HTTP
    /// client's 16 connections a host to the reads a user waits on.
    var maximumFiles = 8
    /// Bytes fetched ahead at once, within read-ahead's budget (the store checks that too).
    var maximumBytes: Int64 = 8 << 20
    /// The largest file fetched whole: one block of the cache (`BlockStore.isSmall`).
    var smallFileLimit: Int64 = 1 << 20
    /// Files past the opened one looked at: those `ListingOrderReads` learns the location of.
    var lookahead = 16

    /// The files fetched ahead, and what to cancel, after one open.
    struct Plan: Equatable {
        var fetch: [BoxItem] = []
        var cancel: [BoxItem] = []
    }

    /// The folder whose walk the window serves.
    private(set) var folderID: String?
    /// The files of the window, in listing order.
    private(set) var window: [BoxItem] = []

    var windowBytes: Int64 { window.reduce(0) { $0 + $1.size } }

    /// Records an open of `opened` at `position` of `listing` (the listing of `folderID`), where `walking` says whether
    /// `ListingOrderReads` sees a walk in that folder now, and `restarted` whether this open ended one.
    mutating func opened(
        _ opened: BoxItem, position: Int, of listing: [BoxItem], folderID: String, walking: Bool, restarted: Bool
    ) -> Plan {
        guard listing.indices.contains(position) else { return Plan() }
        var plan = Plan()
        if folderID != self.folderID {
            // Another folder: a walk there takes the window; a mere open leaves it to the walk it serves.
            guard walking else { return plan }
            plan.cancel = window
            window = []
            self.folderID = folderID
        } else if restarted || !walking {
            // The opened file, if it was fetched ahead in the version opened, is being read: not cancelled.
            plan.cancel = window.filter { $0.id != opened.id || $0.contentVersion != opened.contentVersion }
            window = []
            return plan
        }
        // Reached or passed: a file no longer in the listing, or at the opened position or before it.
        let positions = Dictionary(listing.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        window.removeAll { item in
            guard let at = positions[item.id], at > position else {
                if item.id != opened.id || item.contentVersion != opened.contentVersion { plan.cancel.append(item) }
                return true
            }
            return false
        }
        let held = Set(window.map(\.id))
        var bytes = windowBytes
        var followed = 0
        for item in listing[(position + 1)...] where item.kind == .file {
            followed += 1
            if followed > lookahead || window.count >= maximumFiles { break }
            guard item.size > 0, item.size <= smallFileLimit, !held.contains(item.id) else { continue }
            guard bytes + item.size <= maximumBytes else { break }
            bytes += item.size
            window.append(item)
            plan.fetch.append(item)
        }
        return plan
    }

    /// Takes files out of the window that were not fetched ahead after all (the store refused them): the next open
    /// may name them again.
    mutating func leave(_ ids: Set<String>) {
        window.removeAll { ids.contains($0.id) }
    }
}
