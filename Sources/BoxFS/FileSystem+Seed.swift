import BoxAPI
import Foundation
import Transfers

extension FileSystem {
    /// Lets go of a local file nobody uses any more, under the state lock that just took it out of `LocalFiles`
    /// (an open that no longer finds the local file finds its seeding). When its content is exactly a Box version
    /// (just uploaded, or fetched for writing and left unchanged), its bytes first become that version's blocks in
    /// the disk cache (`BlockStore.seed`, checked against Box's SHA-1), so reading the file back costs no download;
    /// the staging file is deleted after that, by the seeding's task. Answers the staging file for the caller to
    /// delete once the lock is let go of when there is nothing to seed.
    func retire(_ file: LocalFiles.File, in state: inout CoreState) -> StagingFile? {
        guard !file.unlinked, let base = file.base, let sha1 = base.sha1, base.id == file.item.id,
              base.fileVersionID == file.item.fileVersionID, base.size > 0, file.staging.size == base.size
        else { return file.staging }
        let remote = RemoteFile(id: base.id, version: base.contentVersion, size: base.size, sha1: sha1)
        let store = self.store, staging = file.staging
        let task = Task {
            _ = await store.seed(remote) { offset, length in try staging.read(offset: offset, length: length) }
            staging.remove()
        }
        state.seedings[base.id] = task
        Task { [weak self] in
            await task.value
            self?.seedings.withLock { seedings in if seedings[base.id] == task { seedings[base.id] = nil } }
        }
        return nil
    }

    /// Returns once the cache holds what this mount uploaded of `itemID` (see `retire`): reading it
    /// back right after its upload then finds its blocks instead of downloading them.
    func waitForSeeding(of itemID: String) async {
        guard let seeding = seedings.withLock({ $0[itemID] }) else { return }
        await seeding.value
    }

    /// Waits for every seeding under way (at unmount: what was just uploaded is in the cache at the next mount).
    func finishSeeding() async {
        for seeding in seedings.withLock({ Array($0.values) }) { await seeding.value }
    }
}
