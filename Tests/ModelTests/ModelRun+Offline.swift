import BoxTestSupport
import Foundation
import Glibc

/// Offline periods on a real mount: the network cut by a `CuttableProxy` between the mount and boxsim (the mount's
/// connections refused, the test's own calls to boxsim going on), changes made on Box elsewhere through boxsim's
/// API (reported to the mount by its event stream, once it can reach boxsim again), and the restore. The same
/// `OfflineBook` judges the answers while cut and reconciles the model at the restore as in-process.
extension ModelRun {
    /// Checks one operation's answer against the thread's model (by `OfflineBook` while cut); answers the divergence.
    /// (The real-mount run's and the in-process run's alike: each passes its thread's model and book.)
    static func judge(
        _ op: Op, _ actual: Outcome, thread: Int, model: inout FileModel, offline: inout OfflineBook, index: Int
    ) -> Divergence? {
        let before = model
        var after = before
        let expected = after.apply(op)
        var why: String?
        if offline.isCut {
            switch offline.judge(op, model: before, expected: expected, actual: actual) {
            case .keep:
                model = after
                offline.changedHere.formUnion(OfflineBook.changedFiles(op, before: before, after: after))
                offline.notHere.subtract(OfflineBook.madeHere(op, before: before, after: after))
                return nil
            case .drop:
                return nil
            case .diverge(let reason):
                model = after
                why = reason
            }
        } else {
            model = after
            guard actual != expected else {
                offline.notHere.subtract(OfflineBook.madeHere(op, before: before, after: after))
                return nil
            }
        }
        let name = op.description.split(separator: " ").first.map(String.init) ?? ""
        let answer = actual.errno == 0 ? "wrong result" : actual.description
        return Divergence(kind: .op, step: index, message: explain(op, thread, expected, actual) + (why.map { " (\($0))" } ?? ""),
                          operation: "\(name) \(answer)")
    }

    func closeAllHandles() {
        for state in states {
            state.executor.closeAll()
            state.model.closeAll()
        }
    }

    /// What the walk of a cut must find unreadable: the files whose content is not on this machine.
    func unreadableWhileCut() -> [String: String] {
        var result: [String: String] = [:]
        for (thread, state) in states.enumerated() {
            for (path, entry) in state.model.entries {
                guard case .file(let id) = entry, state.offline.notHere.contains(id) else { continue }
                result["t\(thread)/" + path] = Manifest.unreadable(size: state.model.contents[id]?.count ?? 0)
            }
        }
        return result
    }

    /// Cuts the network once what is pending has reached Box, then waits until the mount says it is offline (its
    /// event stream's next try finds nothing listening), so that the first operation after the cut does not spend
    /// the retries of the request that finds Box gone.
    func cutNetwork(at index: Int, _ api: BoxSimAPI) -> Divergence? {
        closeAllHandles()
        if let failure = settle(api, checkingMount: false) { return failure }
        for state in states { state.offline = OfflineBook(atCut: state.model, notHere: state.offline.notHere) }
        proxy?.cut()
        cut = true
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if let root = fixture?.mountpoint.path, Self.isOffline(root) { return nil }
            usleep(100_000)
        }
        return Divergence(kind: .hang, step: index, message: "the mount did not say it was offline within 30 s of the cut")
    }

    /// Restores the network; the tree on Box and in the mount must become the models' with the changes made
    /// elsewhere meanwhile (each change of the mount that met one beside it as a conflicted copy). The copies are
    /// then deleted elsewhere, and the threads' folders listed again (a deletion's event drops its folder's listing).
    func restoreNetwork(at index: Int, _ api: BoxSimAPI) -> Divergence? {
        closeAllHandles()
        do { try proxy?.restore() } catch {
            return Divergence(kind: .mount, step: index, message: "restoring the network: \(error)")
        }
        cut = false
        var copies: [String: String] = [:]
        for (thread, state) in states.enumerated() {
            let (model, threadCopies, notHere) = state.offline.reconciled(state.model)
            state.model = model
            state.offline = OfflineBook(notHere: notHere)
            for (path, bytes) in threadCopies { copies["t\(thread)/" + path] = Manifest.file(size: bytes.count, bytes) }
        }
        if var failure = settle(api, extra: copies, converging: true) {
            failure.message = "after the network was restored: " + failure.message
            return failure
        }
        guard !copies.isEmpty else { return nil }
        guard let tree = Self.retrying({ try api.tree() }) else {
            return Divergence(kind: .mount, step: index, message: "listing Box to delete the conflicted copies elsewhere failed")
        }
        for (_, entry) in tree where !entry.isFolder && entry.name.contains(" (conflict ") {
            // A delete whose answer was lost is done: a repeat's 404 says so.
            guard Self.retrying({ try api.deleteFile(entry.id) }) != nil || (Self.retrying({ try api.items(in: entry.parentID ?? "0") })?
                .contains { $0.id == entry.id } == false) else {
                return Divergence(kind: .mount, step: index, message: "deleting the conflicted copy \(entry.name) elsewhere failed")
            }
        }
        return waitForListings(at: index, "after its conflicted copies were deleted elsewhere")
    }

    /// Someone else changes Box in a thread's folder through boxsim's API: the mount must show it (its listings,
    /// sizes) once its event stream reports it, or once the network is restored. Not made on a file a handle of the
    /// thread holds open, nor twice on one path in one cut; made only where Box allows it.
    func changeElsewhere(_ op: RemoteOp, thread: Int, at index: Int, _ api: BoxSimAPI) -> Divergence? {
        let state = states[thread]
        let folded = op.path.lowercased()
        if let path = state.model.filePath(folded: folded), let id = state.model.fileID(path),
           state.model.openSlots.contains(where: { state.model.handle($0)?.file == id }) {
            return nil
        }
        if cut {
            guard state.offline.elsewhere[folded] == nil, let change = Self.make(op, in: "t\(thread)", api) else { return nil }
            state.offline.elsewhere[folded] = change
            return nil
        }
        // Box holds what the mount wrote before someone else changes it (else it would be a conflict by timing):
        // handles are closed, as around a remount, and the uploads settle.
        closeAllHandles()
        if let failure = settle(api, checkingMount: false) { return failure }
        guard let change = Self.make(op, in: "t\(thread)", api) else { return nil }
        if let content = change.content {
            state.offline.notHere.insert(state.model.changedElsewhere(change.path, to: content))
        } else {
            state.model.deletedElsewhere(change.path)
        }
        return waitForListings(at: index, "after a change made elsewhere")
    }

    /// Waits (10 s at most) until every thread's listings, walked through the mount without reading a file, show
    /// its model: the mount learnt of the changes made elsewhere, and holds the folders' listings again.
    private func waitForListings(at index: Int, _ when: String) -> Divergence? {
        guard let root = fixture?.mountpoint.path else { return nil }
        var expected: [String: String] = [:]
        for (thread, state) in states.enumerated() {
            expected["t\(thread)/"] = Manifest.folder
            for (path, entry) in state.model.entries where !path.isEmpty {
                if case .file(let id) = entry {
                    expected["t\(thread)/" + path] = Manifest.listed(size: state.model.contents[id]?.count ?? 0)
                } else {
                    expected["t\(thread)/" + path + "/"] = Manifest.folder
                }
            }
        }
        let deadline = Date().addingTimeInterval(10)
        var last = ""
        while true {
            switch SyscallExecutor.walk(root, reads: .none) {
            case .success(let actual) where actual == expected: return nil
            case .success(let actual): last = Manifest.diff(expected: expected, actual: actual)
            case .failure(let error): last = "errno \(error.code)"
            }
            if Date() > deadline { break }
            usleep(100_000)
        }
        return Divergence(kind: .mountTree, step: index, message: "the mount's listings \(when) differ from the model after 10 s:\n" + last)
    }

    /// Makes `op` on boxsim in the folder at `folder`, where Box allows it; answers what Box then holds there. The
    /// test's own calls meet the run's fault rules too (a 5xx, an upload's answer cut after Box stored it): each is
    /// tried again until Box is seen to hold the change.
    static func make(_ op: RemoteOp, in folder: String, _ api: BoxSimAPI) -> ChangeElsewhere? {
        let parentPath = FileModel.parent(folder + "/" + op.path)
        let name = FileModel.name(op.path)
        guard let found = retrying({ try api.entry(at: parentPath) }), let parent = found, parent.isFolder,
              let siblings = retrying({ try api.items(in: parent.id) }) else { return nil }
        let holder = siblings.first { $0.name.lowercased() == name.lowercased() }
        if let holder, holder.isFolder || holder.name != name { return nil }
        /// What Box holds at the name now (`.some(nil)`: nothing), or nil when Box could not be asked.
        func current() -> BoxEntry?? {
            retrying { try api.items(in: parent.id).first { $0.name.lowercased() == name.lowercased() } }
        }
        for _ in 0..<10 {
            switch op {
            case .write(_, let fill):
                let bytes = fill.bytes
                if let holder {
                    _ = try? api.uploadVersion(of: holder.id, data: Data(bytes))
                } else {
                    _ = try? api.uploadFile(named: name, data: Data(bytes), parentID: parent.id)
                }
                if case .some(.some(let now)) = current(), now.name == name, now.sha1 == Manifest.sha1(bytes) {
                    return ChangeElsewhere(path: op.path, content: bytes)
                }
            case .delete:
                guard let holder else { return nil }
                _ = try? api.deleteFile(holder.id)
                if case .some(.none) = current() { return ChangeElsewhere(path: op.path, content: nil) }
            }
            usleep(200_000)
        }
        return nil
    }

    /// `body`'s answer, tried up to 10 times (boxsim's fault rules answer the test's calls too); nil if each failed.
    static func retrying<T>(_ body: () throws -> T) -> T? {
        for _ in 0..<10 {
            if let value = try? body() { return value }
            usleep(200_000)
        }
        return nil
    }

    /// Whether the mount's `.boxfs\status` says Box cannot be reached.
    static func isOffline(_ mountpoint: String) -> Bool {
        let fd = Glibc.open(mountpoint + "/.boxfs\\status", O_RDONLY)
        guard fd >= 0 else { return false }
        defer { Glibc.close(fd) }
        let bytes = SyscallExecutor.readAll(fd, from: 0, upTo: 1 << 20).bytes ?? []
        guard let json = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else { return false }
        return json.contains { $0.key.lowercased().contains("offline") && !($0.value is NSNull) }
    }
}
