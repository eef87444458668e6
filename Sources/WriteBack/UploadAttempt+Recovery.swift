import BoxAPI
import Foundation
import SystemCalls

extension UploadAttempt {
    /// Box refused the upload for its folder (a 404). That alone may be ambiguous, so the folder is looked at: gone
    /// (404) or in the trash, the content is copied durably to the recovery place and the attempt answers where it
    /// is kept (the lifecycle then drops the entry). A look that fails for a moment (a 5xx, a 429, no answer) is no
    /// confirmation: the upload is tried again later. A folder that is there after all keeps the entry parked
    /// (`otherwise`).
    func keepAsideIfFolderGone(
        entryID: Int64, target: UploadTarget, recovery: RecoveryPlace, otherwise failure: Outcome
    ) async -> Outcome {
        do {
            let folder = try await client.itemWithPath(id: target.parentID, kind: .folder)
            guard let status = folder.itemStatus, status == "trashed" || status == "deleted" else { return failure }
        } catch let lookup as BoxAPIError where lookup.kind == .notFound {
            // Gone: kept below.
        } catch let lookup as BoxAPIError where lookup.isTransient || lookup.isTransport {
            return .failed(.transient(retryAfter: lookup.retryAfter, message: "looking at its folder: \(lookup.description)"))
        } catch is CancellationError {
            return .failed(.transient(retryAfter: nil, message: "cancelled"))
        } catch {
            return failure
        }
        let entry: UploadEntry?
        do { entry = try journal.entry(id: entryID) } catch { return .failed(.other("\(error)")) }
        guard let entry else { return .vanished }
        let folderPath = (try? journal.folderPaths())?[target.parentID]
        let mountPath = folderPath.map { $0.isEmpty ? target.name : $0 + "/" + target.name } ?? target.name
        let staging = entry.stagingPath
        do {
            let kept = try await Syscall.offThePool { () throws in try recovery.keep(staging, relativePath: mountPath) }
            return .keptAside(path: kept, mountPath: mountPath)
        } catch {
            logger.error("upload of \"\(mountPath)\": its folder is gone from Box, and keeping it in \(recovery.directory.path) failed: \(error)")
            return .failed(.other("its folder is gone from Box; keeping it in \(recovery.directory.path) failed: \(error)"))
        }
    }
}

extension BoxAPIError {
    /// No answer came (refused, cut, timed out): says nothing of the folder.
    fileprivate var isTransport: Bool {
        if case .transport = kind { return true }
        return false
    }
}
