import Foundation
import Glibc

/// A change someone else made on Box while the network was cut, as Box holds it: the path it was made at
/// (relative to the thread's folder) and the file's content then (nil: deleted).
struct ChangeElsewhere: Sendable {
    var path: String
    var content: [UInt8]?
}

/// What one thread's model keeps of the offline periods (docs/SEMANTICS.md "Offline" and "Conflicts"): what the
/// mount held when the network was cut (Box held exactly that then), what was changed elsewhere meanwhile, what
/// the mount changed meanwhile, and which contents are not on this machine.
struct OfflineBook: Sendable {
    /// The thread's model when the network was cut; nil while it is up.
    var atCut: FileModel?
    /// Changes made elsewhere while cut, by path compared as Box compares names (lowercased); one per path a cut.
    var elsewhere: [String: ChangeElsewhere] = [:]
    /// Files (the model's ids) whose content the mount changed while cut: they go up once Box answers.
    var changedHere: Set<Int> = []
    /// Files whose current content the mount knows of but has not had whole since (a version made elsewhere, not
    /// read yet): while cut, reading it must fail at once with EIO ("content not on this machine").
    var notHere: Set<Int> = []

    var isCut: Bool { atCut != nil }

    enum Judgement: Equatable {
        /// The answer is the model's: the model keeps the operation's change.
        case keep
        /// The operation failed as Box out of reach allows (EIO, nothing changed): the model drops its change.
        case drop
        case diverge(String)
    }

    /// Whether `actual` is what the mount may answer to `op` while the network is cut, `expected` being what the
    /// model answers with Box at hand (`model`: the thread's model before the operation).
    ///
    /// What docs/SEMANTICS.md promises offline: listings and stats are what the mount holds (the model's); content
    /// here (written here, or read whole since its version was made) reads byte-exact; a new file and a rewrite
    /// from nothing (`O_TRUNC`) are accepted and journaled. May fail with EIO: whatever needs content that is not
    /// on this machine (a read, or a local copy for an append or a truncate), and the namespace operations Box
    /// carries out at once (mkdir, rmdir, unlink and rename of what Box holds). A read of content not here must
    /// fail.
    func judge(_ op: Op, model: FileModel, expected: Outcome, actual: Outcome) -> Judgement {
        func missing(_ id: Int?) -> Bool { id.map(notHere.contains) ?? false }
        var needsBox = false
        var mustFail = false
        switch op {
        case .read(let path):
            needsBox = missing(model.fileID(path))
            mustFail = needsBox && expected.bytes?.isEmpty == false
        case .pread(let slot, _, _):
            needsBox = missing(model.handle(slot)?.file)
            mustFail = needsBox && expected.bytes?.isEmpty == false
        case .open(_, let path, _, _), .append(let path, _), .truncate(let path, _):
            needsBox = missing(model.fileID(path))
        case .rename, .unlink, .mkdir, .rmdir:
            needsBox = expected.errno == 0
        default:
            break
        }
        if actual == expected {
            return mustFail ? .diverge("read content that is not on this machine while Box is unreachable") : .keep
        }
        if actual.errno == EIO, needsBox { return .drop }
        if mustFail { return .diverge("a read of content not on this machine must fail with EIO while Box is unreachable") }
        return .diverge("while Box is unreachable")
    }

    /// The files whose content `op` changed (`before` and `after` the model applied it), to be sent once Box
    /// answers.
    static func changedFiles(_ op: Op, before: FileModel, after: FileModel) -> [Int] {
        switch op {
        case .writeFile(let path, _), .append(let path, _), .truncate(let path, _):
            return after.fileID(path).map { [$0] } ?? []
        case .open(let slot, let path, _, true) where before.fileID(path) == nil:
            return after.handle(slot).map { [$0.file] } ?? []
        case .pwrite(let slot, _, _), .ftruncate(let slot, _):
            return after.handle(slot).map { [$0.file] } ?? []
        default:
            return []
        }
    }

    /// After `op` succeeded, the files whose whole content the mount now holds (read whole, or copied here to be
    /// changed).
    static func madeHere(_ op: Op, before: FileModel, after: FileModel) -> [Int] {
        switch op {
        case .read(let path): return after.fileID(path).map { [$0] } ?? []
        case .open(let slot, _, true, _): return after.handle(slot).map { [$0.file] } ?? []
        default: return changedFiles(op, before: before, after: after)
        }
    }

    /// The thread's model once the network is back and the queued changes met those made elsewhere, and the
    /// conflicted copies expected beside them (path → content; named `NAME (conflict)`, the date left out).
    ///
    /// For each path changed elsewhere: if the mount did not change it while cut, Box's side shows (a new version,
    /// a new file, or the file gone). If it did: a file deleted elsewhere comes back with the mount's content as a
    /// new file; a new version or a new file made elsewhere keeps the name with Box's content, and the mount's
    /// content goes up beside it as a conflicted copy (docs/SEMANTICS.md "Conflicts").
    func reconciled(_ model: FileModel) -> (model: FileModel, conflictedCopies: [String: [UInt8]], notHere: Set<Int>) {
        guard let atCut else { return (model, [:], notHere) }
        var result = model
        var copies: [String: [UInt8]] = [:]
        var notHere = notHere
        for (folded, change) in elsewhere.sorted(by: { $0.key < $1.key }) {
            let here = model.filePath(folded: folded)
            let hereID = here.flatMap(model.fileID)
            let before = atCut.filePath(folded: folded).flatMap(atCut.fileID)
            let changed = hereID.map { $0 != before || changedHere.contains($0) } ?? (before != nil)
            guard changed, let here, let hereID else {
                if let here, change.content == nil || here != change.path { result.deletedElsewhere(here) }
                if let content = change.content { notHere.insert(result.changedElsewhere(change.path, to: content)) }
                continue
            }
            guard let content = change.content else { continue }
            copies[here + " (conflict)"] = model.contents[hereID] ?? []
            if here != change.path { result.deletedElsewhere(here) }
            notHere.insert(result.changedElsewhere(change.path, to: content))
        }
        return (result, copies, notHere)
    }
}

extension Manifest {
    /// A conflicted copy's name with its date left out (`f1 (conflict 2026-11-28 140501)` → `f1 (conflict)`), so
    /// that a tree compares with the model's whatever the moment the copy was made.
    static func withoutConflictDates(_ manifest: [String: String]) -> [String: String] {
        var result: [String: String] = [:]
        for (path, value) in manifest {
            let undated = path.replacingOccurrences(
                of: #" \(conflict [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{6}( [0-9]+)?\)"#, with: " (conflict)",
                options: .regularExpression)
            result[undated] = result[undated] == nil ? value : "\(value) (and another copy)"
        }
        return result
    }
}
