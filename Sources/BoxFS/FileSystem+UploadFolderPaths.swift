import Foundation
import SystemCalls
import WriteBack

/// How `boxfs status` names a waiting upload: by its whole path below the mount's root, whether or not its folder is
/// in memory. The tree knows a folder's path only while the kernel holds the folder (it forgets folders, a remount
/// starts empty); Box's `path_collection` needs Box to answer, which is when uploads wait least. So the journal keeps,
/// with each entry, the mount path its folder had when the entry was journaled or moved there (`folder_path`), and
/// status takes the tree's path when the folder is in memory and the kept one otherwise. A folder renamed through the
/// mount takes the kept paths at and below it along (`moveFolderPaths`).
extension FileSystem {
    /// The mount path of folder `folderID` as the tree knows it now ("" for the mount's root); nil when the folder's
    /// node is not in memory.
    func mountPath(ofFolder folderID: String) -> String? {
        tree.withLock { $0.path(ofFolderID: folderID) }
    }

    /// Keeps the mount path of `folderID` in the journal, for a waiting upload moved there.
    func keepUploadFolderPath(_ folderID: String) async {
        guard let writeBack, let path = mountPath(ofFolder: folderID) else { return }
        do { try await writeBack.journal.recordFolderPath(path, of: folderID) } catch {
            logger.debug(
                "could not keep a folder's path for status", metadata: ["folder": "\(folderID)", "error": "\(error)"])
        }
    }

    /// `name` in `parent` was renamed to `newName` in `newParent`: if it was a folder, the kept paths of the folders
    /// at and below it follow it (their nodes need not be in memory).
    func keepUploadFolderPaths(renamedFrom parent: UInt64, _ name: String, to newParent: UInt64, _ newName: String) async {
        func path(_ inode: UInt64, _ name: String) -> String? {
            (try? folderItem(inode)).flatMap { mountPath(ofFolder: $0.id) }.map { $0.isEmpty ? name : $0 + "/" + name }
        }
        guard let writeBack, let old = path(parent, name), let new = path(newParent, newName), old != new else { return }
        do { try await writeBack.journal.moveFolderPaths(from: old, to: new) } catch {
            logger.debug(
                "could not move kept folder paths for status", metadata: ["from": "\(old)", "error": "\(error)"])
        }
    }

    /// The status names of `targets`, by entry id: the tree's path of each folder, else the journal's, else the
    /// file's name alone. A folder whose path the tree knows differently from the journal gets it kept anew (it was
    /// renamed since), in the background.
    func uploadStatusNames(_ targets: [(id: Int64, target: UploadTarget)]) async -> [Int64: String] {
        let journal = writeBack?.journal
        // A read of SQLite: off Swift's cooperative pool.
        let kept = await Syscall.offThePool { (try? journal?.folderPaths()) ?? [:] }
        var names: [Int64: String] = [:]
        var stale: Set<String> = []
        for (id, target) in targets {
            let live = mountPath(ofFolder: target.parentID)
            if let live, kept[target.parentID] != live { stale.insert(target.parentID) }
            guard let folder = live ?? kept[target.parentID] else {
                names[id] = target.name
                continue
            }
            names[id] = folder.isEmpty ? target.name : folder + "/" + target.name
        }
        if !stale.isEmpty {
            Task { [self] in for folderID in stale { await keepUploadFolderPath(folderID) } }
        }
        return names
    }
}
