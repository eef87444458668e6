import BoxAPI
import CurlHTTP
import Foundation

extension UploadLifecycle {
    /// How many attempts in a row may meet the name held by a file of the mount's own before it counts as taken.
    static let ownHolderTries = 5
    /// How many attempts in a row may meet the name held by a file another journaled entry made: that entry's
    /// next attempt frees it, but two entries each holding the other's name (a swap of names while both uploads'
    /// answers were lost) would otherwise wait for each other for good. With the retry policy's growing wait this
    /// is about a quarter of an hour.
    static let pendingHolderTries = 20

    /// Box holds `item`. Complete if nothing was written meanwhile; otherwise the newer content
    /// becomes the next version of `item`.
    mutating func finished(_ item: BoxItem, generation uploaded: Int64, now: Double) -> [Action] {
        failures = 0
        resetConflict()
        if let wanted = target.fileID, wanted != item.id {
            // Retargeted while the upload ran (an editor's temp file renamed over an existing file):
            // the content landed as a file nobody wants; it goes to the wanted file next.
            var actions: [Action] = [.stray(item)]
            actions += isOpen ? [] : wait(until: now)
            if isOpen { phase = .idle }
            return actions
        }
        if uploaded >= generation, !isOpen {
            phase = .done
            return [.report(item, isFinal: true), .forget]
        }
        // The name and folder stay the target's: a rename here while the upload ran retargeted it, and what
        // Box answered for the upload may predate that rename (a journal holding Box's older name would, after
        // a crash, give the file its old name back).
        let next = UploadTarget.newVersion(
            fileID: item.id, parentID: target.parentID, name: target.name, baseETag: item.etag,
            baseSHA1: item.sha1)
        target = next
        var actions: [Action] = [.saveTarget(next), .report(item, isFinal: false)]
        if isOpen {
            phase = .idle
        } else {
            phase = .waiting(until: now + settings.delay)
            actions.append(.wake(at: now + settings.delay))
        }
        return actions
    }

    /// Box no longer has the folder, and the content is kept in the recovery place: complete if nothing was written
    /// meanwhile; otherwise the newer content is tried again after the delay (and kept too, if the folder is still gone).
    mutating func keptAside(path: String, mountPath: String, generation kept: Int64, now: Double) -> [Action] {
        failures = 0
        resetConflict()
        if kept >= generation, !isOpen {
            phase = .done
            return [.keptAside(path: path, mountPath: mountPath, isFinal: true), .forget]
        }
        let report = Action.keptAside(path: path, mountPath: mountPath, isFinal: false)
        guard !isOpen else {
            phase = .idle
            return [report]
        }
        return [report] + wait(until: now + settings.delay)
    }

    mutating func failed(_ failure: UploadFailure, now: Double, wallClock: Date) -> [Action] {
        failures += 1
        let note = Action.noteFailure(failure, target: target)
        switch failure {
        case .transient(let retryAfter, _):
            let wait = settings.retry.wait(retryAfter: retryAfter, attempt: failures, random: .random(in: 0..<1))
            return retry(after: wait, now: now, noting: note)
        case .contentChanged, .targetMoved:
            // Not Box's fault: send the new content (or to the new place) after the usual delay.
            return retry(after: settings.delay, now: now, noting: note)
        case .changedOnBox, .nameTaken:
            return conflictCopy(wallClock: wallClock, noting: note)
        case .nameHeldByOwnFile:
            // Its follow-up takes a moment; a name still held after that many tries is held for good: a conflict.
            guard failures > Self.ownHolderTries else { return retry(after: settings.delay, now: now, noting: note) }
            return conflictCopy(wallClock: wallClock, noting: note)
        case .nameHeldByPendingUpload:
            // No conflict while the other entry lives and may still move its file (model seed 30056: its file was
            // being written, and five quick tries here made a conflicted copy nobody caused); tried again with a
            // growing wait.
            guard failures <= Self.pendingHolderTries else { return conflictCopy(wallClock: wallClock, noting: note) }
            let wait = settings.retry.wait(retryAfter: nil, attempt: failures, random: .random(in: 0..<1))
            return retry(after: max(settings.delay, wait), now: now, noting: note)
        case .targetRemovedHere:
            // Its retarget follows at once. Still aimed at the removed file after that many tries, the entry was left
            // to nobody (model seed 35064, before its fix: it was tried for ever, its content on no Box file): the
            // content comes back as a new file at its name, like a file deleted on Box.
            guard failures > Self.ownHolderTries else { return retry(after: settings.delay, now: now, noting: note) }
            fallthrough
        case .targetGone:
            // Deleted on Box while edited here: the local content comes back as a new file.
            let original = target
            let recreated = UploadTarget.newFile(parentID: target.parentID, name: target.name)
            target = recreated
            return [note, .recreated(original: original), .saveTarget(recreated)] + startUnlessOpen(recreated)
        case .parentGone, .storageFull, .fileTooLarge, .other:
            let until = now + settings.parkInterval
            phase = isOpen ? .idle : .parked(until: until, reason: failure)
            return isOpen ? [note] : [note, .wake(at: until)]
        }
    }

    private mutating func retry(after delay: Double, now: Double, noting note: Action) -> [Action] {
        guard !isOpen else {
            phase = .idle
            return [note]
        }
        phase = .retrying(until: now + delay)
        return [note, .wake(at: now + delay)]
    }

    /// The content goes up as a new file named `NAME (conflict <time>).EXT` beside the original.
    private mutating func conflictCopy(wallClock: Date, noting note: Action) -> [Action] {
        let original = conflictOriginal ?? target
        let time = conflictTime ?? wallClock
        conflictAttempts += 1
        conflictOriginal = original
        conflictTime = time
        let name = ConflictName.make(from: original.name, at: time, attempt: conflictAttempts)
        let copy = UploadTarget.newFile(parentID: original.parentID, name: name)
        target = copy
        return [note, .conflict(original: original, copyName: name), .saveTarget(copy)] + startUnlessOpen(copy)
    }

    /// Sends `next` now, unless a writer has the file open: then its close starts the upload, so
    /// no upload ever counts as the last while writes may still come.
    private mutating func startUnlessOpen(_ next: UploadTarget) -> [Action] {
        guard !isOpen else {
            phase = .idle
            return []
        }
        phase = .uploading(generation: generation)
        return [.startUpload(next, generation: generation)]
    }

    private mutating func resetConflict() {
        conflictAttempts = 0
        conflictTime = nil
        conflictOriginal = nil
    }
}
