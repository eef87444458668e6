import BoxAPI

/// Recognises folders whose files are being opened one after another in listing order, as `grep -r`,
/// `cp -r` and `tar` walk a tree, and names the files worth preparing next.
///
/// Why: reading a small Box file costs two round trips (the API call that yields a pre-signed
/// location, then the download). Learning the locations of the next files while the current one is
/// read leaves one round trip per file. Only locations are learnt, never content, so a wrong guess
/// costs an API call and no bytes.
///
/// The rule, per folder: an open of the next *file* after the previously opened one (folders and
/// empty files between them skipped; before the first open of a folder, "previous" is its start)
/// extends the folder's run; any other open (a re-open, a jump back or ahead) starts the run anew.
/// Once the run is `runLength` opens long, each open names the files up to `lookahead` files past
/// it that were never named before in that folder (empty files are never named).
///
/// State is kept for the `folderCapacity` folders opened most recently, so a walk through a subtree
/// interrupts the parent folder's run without ending it. A plain value: no I/O, no locks (the file
/// system keeps it in a mutex).
///
/// The same rule follows a walk of folders (`ls -R`, `find`, `du`): with `kind` `.folder`, an open is an
/// `opendir` of a sub-folder, and the folders named are those to list ahead (`FileSystem+PrepareNext`).
struct ListingOrderReads {
    /// What the opens followed are of: files (their locations are learnt ahead) or folders (listed ahead).
    var kind: BoxItem.Kind = .file
    var runLength = 3
    var lookahead = 16
    var folderCapacity = 16

    /// The rule for a walk of folders: two sub-folders opened in listing order, then four listed ahead.
    static let folderWalk = ListingOrderReads(kind: .folder, runLength: 2, lookahead: 4)

    /// What is known of one folder's reads.
    private struct FolderRun {
        /// The file opened last in this folder, and where it stood in the listing.
        var last: (id: String, position: Int)?
        /// In-order opens in a row, the last one included.
        var length = 0
        /// Files named for preparation already: each is named at most once.
        var named: Set<String> = []
    }

    private var runs: [String: FolderRun] = [:]
    /// Folder ids, the one opened in most recently last.
    private var recency: [String] = []

    /// Records an open of the file at `position` of `listing` (the listing of `folderID`, in Box's
    /// order) and answers the files to prepare now, in listing order (often none).
    mutating func opened(position: Int, of listing: [BoxItem], folderID: String) -> [BoxItem] {
        guard listing.indices.contains(position), listing[position].kind == kind else { return [] }
        var run = runs[folderID] ?? FolderRun()
        // Before the folder's first open, its start counts as the previous position.
        let previous: Int? = if let last = run.last { Self.position(of: last, in: listing) } else { -1 }
        if let previous, isNext(position, after: previous, in: listing) {
            run.length += 1
        } else {
            run.length = 0
        }
        run.last = (listing[position].id, position)
        var named: [BoxItem] = []
        if run.length >= runLength {
            var followed = 0
            for item in listing[(position + 1)...] where item.kind == kind {
                followed += 1
                if followed > lookahead { break }
                if !isSkipped(item), run.named.insert(item.id).inserted { named.append(item) }
            }
        }
        remember(run, for: folderID)
        return named
    }

    /// Folders whose reads are being followed (tests).
    var followedFolders: Int { runs.count }

    /// In-order opens in a row in `folderID`, the last one included (0: its last open started a run anew).
    func runLength(in folderID: String) -> Int { runs[folderID]?.length ?? 0 }

    /// Where the previously opened file stands now: normally where it stood (the listing is the same),
    /// else wherever a refreshed listing put it, or nil when it is gone.
    private static func position(of last: (id: String, position: Int), in listing: [BoxItem]) -> Int? {
        if listing.indices.contains(last.position), listing[last.position].id == last.id { return last.position }
        return listing.firstIndex { $0.id == last.id }
    }

    /// Whether `position` holds the first item of `kind` after `previous` that a walker opens, or one that only
    /// other kinds and skipped items separate from it (a walker may not open those).
    private func isNext(_ position: Int, after previous: Int, in listing: [BoxItem]) -> Bool {
        guard position > previous else { return false }
        return listing[(previous + 1)..<position].allSatisfy { $0.kind != kind || isSkipped($0) }
    }

    /// Empty files are never read, so never named; every folder may be walked into.
    private func isSkipped(_ item: BoxItem) -> Bool {
        kind == .file && item.size == 0
    }

    private mutating func remember(_ run: FolderRun, for folderID: String) {
        runs[folderID] = run
        if let index = recency.lastIndex(of: folderID) { recency.remove(at: index) }
        recency.append(folderID)
        while recency.count > folderCapacity { runs[recency.removeFirst()] = nil }
    }
}
