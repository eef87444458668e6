extension FileSystem {
    /// A file waiting for upload was opened (to read or to write): the user cares about it now, so its upload goes
    /// before the others waiting (`Uploader.prioritize`). Opened for writing, it goes first once it is closed.
    func sendFirst(_ inode: UInt64) async {
        guard let writeBack, let itemID = tree.withLock({ $0.node(inode)?.itemID }),
            let entryID = locals.withLock({ $0.file(itemID: itemID)?.entryID })
        else { return }
        await writeBack.uploader.prioritize(entryID)
    }
}
