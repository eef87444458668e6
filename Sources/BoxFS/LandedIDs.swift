/// The Box ids that new files' made-up ids (`local-N`) became when their first uploads landed, newest
/// `capacity` of them. A value type inside `InodeTable`, guarded by its mutex.
///
/// Why: a directory snapshot taken, or a listing overlaid, before an upload landed still names the file by its
/// made-up id. Once the local file is gone (uploaded and idle), nothing else says which file that was, and a
/// node made from the old item would stand for no file at all: the next open of the name fails with ENOENT.
struct LandedIDs {
    static let capacity = 4096

    private var boxIDs: [String: String] = [:]
    /// Made-up ids in the order they landed, oldest first (from `start` on), to forget the oldest.
    private var order: [String] = []
    private var start = 0

    /// The Box id `localID` became, if it landed recently.
    func boxID(of localID: String) -> String? { boxIDs[localID] }

    mutating func note(_ localID: String, becameBoxID boxID: String) {
        if boxIDs.updateValue(boxID, forKey: localID) == nil { order.append(localID) }
        guard order.count - start > Self.capacity else { return }
        boxIDs[order[start]] = nil
        start += 1
        if start >= Self.capacity {  // compact now and then, not at every note
            order.removeFirst(start)
            start = 0
        }
    }
}
