import BoxAPI
import FakeBox
import Foundation

/// Someone else's change (`RemoteOp`) made on the fake Box, and the event Box's stream reports it with.
extension FakeBox {
    struct MadeElsewhere {
        var change: ChangeElsewhere
        var event: BoxEvent
    }

    /// Makes `op` in the folder at `folder` (a path from the root, `t0`), where Box allows it: a new version of
    /// the file at the path, a new file at a free name, the file's deletion. Answers nil when Box would refuse
    /// (no such folder, a folder or a name held in another case there, no file to delete).
    func makeElsewhere(_ op: RemoteOp, in folder: String) -> MadeElsewhere? {
        let names = (folder + "/" + op.path).split(separator: "/").map(String.init)
        return try? change { state throws(FakeBoxError) -> MadeElsewhere? in
            var parentID = FakeBoxState.rootID
            for name in names.dropLast() {
                guard let child = state.holder(of: name, in: parentID), child.kind == .folder, child.name == name else {
                    return nil
                }
                parentID = child.id
            }
            let name = names.last ?? ""
            let holder = state.holder(of: name, in: parentID)
            if let holder, holder.kind != .file || holder.name != name { return nil }
            switch op {
            case .write(_, let fill):
                let bytes = fill.bytes
                let item: FakeBoxState.Item
                if let holder {
                    item = try state.uploadVersion(fileID: holder.id, content: bytes, name: nil, ifMatch: nil)
                } else {
                    item = try state.uploadFile(name: name, parentID: parentID, content: bytes)
                }
                return MadeElsewhere(change: ChangeElsewhere(path: op.path, content: bytes),
                                     event: BoxEvent(eventType: "ITEM_UPLOAD", item: state.boxItem(item)))
            case .delete:
                guard let holder else { return nil }
                try state.delete(id: holder.id, kind: .file, recursive: false, ifMatch: nil)
                return MadeElsewhere(change: ChangeElsewhere(path: op.path, content: nil),
                                     event: BoxEvent(eventType: "ITEM_TRASH", item: state.boxItem(holder), itemStatus: "trashed"))
            }
        }
    }

    /// Deletes every conflicted copy on Box (someone dealt with them elsewhere); answers the events for them.
    func removeConflictedCopies() -> [BoxEvent] {
        (try? change { state throws(FakeBoxError) -> [BoxEvent] in
            var events: [BoxEvent] = []
            for item in state.items.values.sorted(by: { $0.id < $1.id })
            where item.kind == .file && item.name.contains(" (conflict ") {
                try state.delete(id: item.id, kind: .file, recursive: false, ifMatch: nil)
                events.append(BoxEvent(eventType: "ITEM_TRASH", item: state.boxItem(item), itemStatus: "trashed"))
            }
            return events
        }) ?? []
    }
}

extension FakeBoxState {
    /// The item as Box's event stream names it (what `FakeBoxRouter` answers for it, decoded).
    func boxItem(_ item: Item) -> BoxItem {
        func date(_ seconds: Int) -> Date { Date(timeIntervalSince1970: epoch + Double(seconds)) }
        return BoxItem(
            id: item.id, kind: item.kind == .file ? .file : .folder, name: item.name, size: Int64(item.content.count),
            createdAt: date(item.created), modifiedAt: date(item.modified), contentCreatedAt: date(item.created),
            contentModifiedAt: date(item.contentModified), etag: String(item.etag), sequenceID: String(item.etag),
            sha1: item.kind == .file ? item.sha1 : nil, fileVersionID: item.kind == .file ? item.versionID : nil,
            parentID: item.parentID)
    }
}
