import BoxAPI
import WriteBack

/// What the core's state decides when the uploader reports on an entry, as mutating functions of `CoreState` that
/// answer the actions to carry out: the façade (`FileSystem+Uploads`) runs them inside one `CoreStateLock.withLock`
/// and does the I/O they name (a leftover's removal, a move on Box, a kernel invalidation) after it. No I/O, no
/// `await` and no clock here, so each is tested as a pure value (`UploadAnswerStateTests`).
extension CoreState {
    /// What an upload's landing asks of the façade.
    enum Landing: Equatable {
        /// No local file has this entry any more (deleted or replaced here meanwhile).
        case orphan
        /// The local file now goes to another Box file: what landed is not its content's home, and is removed
        /// when it was this entry's own new file superseded by a rename (`deleteLanded`).
        case redirected(deleteLanded: Bool)
        /// The local file took what landed as its base; `now` is how the mount shows it (its name and folder
        /// here, which differ from what landed when it was renamed or moved while on the wire).
        case rebased(old: BoxItem, now: BoxItem)
    }

    /// An upload of `entryID` landed as `item`. The local file takes its Box id and the tree rebinds its inode in
    /// this one step: a lookup between the two would make a second inode for the Box id, which the rebind then
    /// detaches under the kernel's feet (ENOENT on open).
    mutating func uploadLanded(_ item: BoxItem, entryID: Int64, target: UploadTarget, isFinal: Bool) -> Landing {
        guard let file = locals.file(entryID: entryID) else { return .orphan }
        if let wanted = file.target.fileID, wanted != item.id {
            if isFinal { locals.update(file.number) { $0.uploadEnded(entryID) } }
            // What landed is this entry's own new file (its first upload: a new file's target, or the next version
            // of what just landed when more was written meanwhile): nobody's content.
            let ownNewFile = target.fileID == nil || target.fileID == item.id
            return .redirected(deleteLanded: file.supersedesNewUpload && ownNewFile)
        }
        let old = file.item
        locals.update(file.number) { file in
            file.rebase(on: item)
            file.item.createdAt = item.createdAt
            if isFinal { file.uploadEnded(entryID) }
        }
        let wanted = locals.file(file.number)!.item
        tree.rebind(id: old.id, to: wanted)
        var listed = item
        listed.name = wanted.name
        listed.parentID = wanted.parentID
        if let parentID = wanted.parentID { tree.upsert(listed, inFolder: parentID) }
        return .rebased(old: old, now: wanted)
    }

    /// The Box file the entry's content was a version of is gone from Box: the content goes up as a new file at
    /// its name, so the local file is new to Box again, and its node follows it (an open handle, a later write
    /// and the upload's answer all find it under its made-up id, not the deleted one's).
    mutating func uploadBecameNewFile(entryID: Int64) {
        guard let (old, now) = locals.makeNewToBox(entryID: entryID) else { return }
        tree.rebind(id: old, to: now)
    }

    /// The file changed on Box while written here: the entry's local content becomes a new file `copyName` beside
    /// it, and the original name shows Box's version again (its folder's listing is fetched anew). Answers whether
    /// a local file had the entry, and the inode whose cached content the kernel must drop, in one step: a lookup
    /// between the local file's move and the listing's drop would show the copy under the original name.
    mutating func uploadConflicted(entryID: Int64, original: UploadTarget, copyName: String) -> (moved: Bool, inode: UInt64?) {
        let moved = locals.makeNewToBox(entryID: entryID) { file in
            file.item.name = copyName
            file.item.parentID = original.parentID
        }
        guard let moved else { return (false, nil) }
        let inode = tree.inode(forItemID: moved.old)
        tree.invalidateListing(folderID: original.parentID)
        return (true, inode)
    }
}
