import BoxAPI
import Foundation
import Logging
import SystemCalls

/// One try at sending an entry's current content to its target, simple or chunked. Turns Box's
/// answers into an outcome for the lifecycle, recognising its own earlier success: after a lost
/// answer, a repeat meets 409 (new file) or 412 (new version) caused by the first attempt, and
/// Box's SHA-1 of the item then equals the local one: that counts as uploaded, not as a conflict.
struct UploadAttempt: Sendable {
    enum Outcome: Sendable {
        case uploaded(BoxItem)
        /// Box held this content already; the file was only renamed or moved to the target's place (or was there).
        case placed(BoxItem)
        /// An earlier attempt of this entry (older content, before a crash) created `item`: the
        /// current content goes up as its next version.
        case earlierUpload(BoxItem)
        /// Box confirmed the target's folder gone; the content is kept at `path` of the recovery place (`mountPath`:
        /// the file's path below the mount).
        case keptAside(path: String, mountPath: String)
        case failed(UploadFailure)
        /// The entry left the journal meanwhile (the file was deleted locally).
        case vanished

        /// Box answered with the file that holds the content (not a failure, whose attempt may have landed).
        var isBoxAnswer: Bool {
            switch self {
            case .uploaded, .placed, .earlierUpload: true
            case .keptAside, .failed, .vanished: false
            }
        }
    }

    let client: BoxClient
    let journal: UploadJournal
    let configuration: UploaderConfiguration
    let progress: ProgressBoard
    let unanswered: UnansweredUploads
    let logger: Logger
    /// Where content Box can no longer take is kept; nil: such an entry is parked, as any refusal.
    let recovery: RecoveryPlace?

    /// Background work: when the pace is tight, the calls a user waits on go before an upload's.
    func run(entryID: Int64, target: UploadTarget, generation: Int64) async -> Outcome {
        await CallPriority.background { await attempt(entryID: entryID, target: target, generation: generation) }
    }

    private func attempt(entryID: Int64, target: UploadTarget, generation: Int64) async -> Outcome {
        // A place sent to stays journaled after a Box answer until the uploader has saved what the answer
        // settled (`Uploader.settled`): a kill between the two must leave the next run a place to look.
        var outcome = noted(await once(entryID: entryID, target: target, generation: generation))
        // The target is gone because this mount removed it as a leftover (what an upload made under a name since
        // replaced): the entry's content belongs elsewhere, and its retarget is on the way. Not someone else's
        // deletion, so not sent up as a new file at once.
        if case .failed(.targetGone) = outcome, let fileID = target.fileID,
            (try? journal.wasLeftover(fileID: fileID)) == true
        {
            return .failed(.targetRemovedHere)
        }
        if case .failed(.parentGone) = outcome, let recovery {
            return await keepAsideIfFolderGone(entryID: entryID, target: target, recovery: recovery, otherwise: outcome)
        }
        // Three 412s that are nobody else's change, answered by sending again against the current etag:
        // a rename or move on Box changes the etag but not the content (Box still holds the version
        // the local content was based on); an earlier attempt of this entry whose answer was lost
        // made the current version itself (Box holds content this entry sent); or another entry of this
        // mount made it (a version in `own_version`: an upload that landed while this entry's content was
        // being taken from an older base, e.g. a rename over a file whose upload was on the wire), or made
        // it with its answer lost (`sent_version`: content sent as a version of this file, no answer yet).
        // The mount's own versions are all older than its newest local content, so they are built on, never
        // kept beside it as a conflicted copy. Once answered, the version id is compared, not the SHA-1, so
        // someone else restoring identical bytes is still a conflict.
        // Each send against the current etag can meet another 412 of the mount's own making (another entry's
        // upload of the same file landing meanwhile, as when a rename replaced a file being sent): a few rounds.
        var target = target
        for _ in 0..<3 {
            guard case .failed(.changedOnBox) = outcome,
                case .newVersion(let fileID, let parentID, let name, _, let baseSHA1) = target
            else { return outcome }
            // The look at Box's version must be answered before a conflict is called: a failed look (Box
            // unreachable for a moment, its answer cut) is a retry, not someone else's change.
            let current: BoxItem
            do {
                current = try await client.file(id: fileID)
            } catch let lookup as BoxAPIError where lookup.isTransient {
                return .failed(.transient(retryAfter: lookup.retryAfter, message: lookup.description))
            } catch {
                return outcome
            }
            guard let currentSHA1 = current.sha1,
                currentSHA1 == baseSHA1 || ((try? journal.sentDigests(id: entryID)) ?? []).contains(currentSHA1)
                    || isOwnVersion(current) || (try? journal.sentAsVersion(fileID: fileID, sha1: currentSHA1)) == true
            else { return outcome }
            if currentSHA1 != baseSHA1 {
                logger.info("an earlier upload of this mount stored other content; sending this as its next version",
                            metadata: ["file": "\(fileID)"])
            }
            target = .newVersion(fileID: fileID, parentID: parentID, name: name, baseETag: current.etag, baseSHA1: currentSHA1)
            outcome = noted(await once(entryID: entryID, target: target, generation: generation))
        }
        return outcome
    }

    private func isOwnVersion(_ item: BoxItem) -> Bool {
        guard let version = item.fileVersionID else { return false }
        return ((try? journal.ownVersions(fileID: item.id)) ?? []).contains(version)
    }

    /// Remembers the version an upload created as this mount's own, whatever becomes of the entry.
    private func noted(_ outcome: Outcome) -> Outcome {
        switch outcome {
        case .uploaded(let item), .earlierUpload(let item), .placed(let item):
            if let version = item.fileVersionID {
                try? journal.noteOwnVersion(fileID: item.id, versionID: version, sha1: item.sha1)
            }
        default: break
        }
        return outcome
    }

    private func once(entryID: Int64, target: UploadTarget, generation: Int64) async -> Outcome {
        do {
            guard let entry = try journal.entry(id: entryID) else { return .vanished }
            guard FileManager.default.fileExists(atPath: entry.stagingPath) else {
                // Nothing left to send: keeping the entry would only retry it forever.
                logger.error("the local copy of \"\(target.name)\" is gone; its upload is dropped")
                try journal.remove(id: entryID)
                return .vanished
            }
            let size = try localSize(entry.stagingPath)
            // Reading and hashing the whole file: off the uploader's thread, which answers the core meanwhile.
            let staging = entry.stagingPath
            let digest = try await Syscall.offThePool { () throws in try FileDigest.sha1(path: staging, length: size) }
            progress.set(entryID, done: 0, total: size)
            // What this entry sent before, and now this: Box holding any of it is this entry's own doing.
            let sentBefore = try journal.sentDigests(id: entryID)
            if case .newVersion(let fileID, let parentID, let name, _, let baseSHA1) = target, baseSHA1 == digest.hex,
                let placed = try await placeOnly(fileID: fileID, parentID: parentID, name: name, entry: entry,
                                                 digest: digest)
            {
                return .placed(placed)
            }
            if !sentBefore.isEmpty, let earlier = try await landedElsewhere(entryID: entryID, target: target,
                                                                           digests: sentBefore)
            {
                return .earlierUpload(earlier)
            }
            try journal.noteSent(id: entryID, sha1: digest.hex, place: target.sentPlace, versionOf: target.fileID)
            unanswered.sending(entryID, sha1: digest.hex, to: target.sentPlace)
            do {
                let item: BoxItem
                if size >= configuration.chunkedThreshold {
                    let chunked = ChunkedUpload(
                        client: client, journal: journal, partsInFlight: configuration.partsInFlight,
                        progress: progress, logger: logger)
                    item = try await chunked.run(
                        entry: entry, target: target, generation: generation, size: size, digest: digest)
                } else {
                    item = try await simple(entry: entry, target: target, digest: digest)
                }
                progress.set(entryID, done: size, total: size)
                return .uploaded(item)
            } catch {
                // Rewritten while it was sent (the body shrank, or Box's digest check failed): the
                // new content goes up after the usual delay, never parked.
                if !(error is CancellationError), (try? localSize(entry.stagingPath)) != size {
                    return .failed(.contentChanged)
                }
                guard let error = error as? BoxAPIError else { throw error }
                return await resolve(error, entryID: entryID, target: target, digest: digest, sentBefore: sentBefore)
            }
        } catch is CancellationError {
            return .failed(.transient(retryAfter: nil, message: "cancelled"))
        } catch let error as BoxAPIError {
            // Box refused a step before the upload itself (the look at the target, its move to the place named
            // here, the look at an earlier place): the same answer from the upload would mean the same. A target
            // deleted meanwhile is gone, not a reason to park the entry (model seed 25075); a 5xx is retried.
            if error.isNameInUse, let own = heldByOwnFile(error, entryID: entryID) { return .failed(own.failure) }
            return .failed(UploadFailure.classify(error, forVersion: target.fileID != nil))
        } catch {
            return .failed(.other(String(describing: error)))
        }
    }

    /// A file an earlier attempt of this entry made as a new file at a place the entry no longer names: the file
    /// was renamed or moved here (or renamed over another file) while that attempt was on the wire, and its answer
    /// never came (the daemon was killed, or the connection cut after Box stored it). Each earlier place is asked
    /// once (a preflight, whose 409 names the file there); a file there with content this entry sent, and no other
    /// entry's, is this entry's own: for a new file it is moved here and built on, for a new version of another
    /// file it is removed (`UploadLifecycle.finished` calls it a stray). Without this, Box kept the file at the
    /// name it was renamed from (model seeds 8143, 11037).
    private func landedElsewhere(entryID: Int64, target: UploadTarget, digests: Set<String>) async throws -> BoxItem? {
        let here = SentPlace(parentID: target.parentID, name: target.name)
        for place in try journal.sentPlaces(id: entryID, except: here) {
            do {
                if let mine = try await ownFile(at: place, entryID: entryID, digests: digests, except: target.fileID) {
                    logger.info("an earlier attempt stored this file as \"\(place.name)\" before it was renamed",
                                metadata: ["file": "\(mine.id)"])
                    return (try? await client.file(id: mine.id)) ?? mine
                }
            } catch let error as BoxAPIError where error.kind == .notFound {
                // The folder is gone: nothing of ours can be there.
            } catch let error as BoxAPIError where error.kind == .forbidden {
                continue  // closed to us (or no room for a byte): asked again at the next attempt
            }
            try journal.forgetSentPlace(id: entryID, place)
        }
        return nil
    }

    /// What a dropped entry's attempts left on Box: one whose answer never came (a connection cut after Box stored
    /// the file) made a file the mount never learnt of. Each place the entry sent to and got no answer from is
    /// asked once; a file there with content this entry sent is nobody's now. Without this, a new file deleted
    /// while such an attempt waited to be tried again came back (model seeds 27015, 27021).
    func leftBehind(entryID: Int64, places: [SentPlace], digests: Set<String>) async -> (BoxItem, SentPlace)? {
        guard !digests.isEmpty else { return nil }
        for place in places {
            if let mine = try? await ownFile(at: place, entryID: entryID, digests: digests, except: nil) {
                return (mine, place)
            }
        }
        return nil
    }

    /// The file at `place` holding content entry `entryID` sent (one of `digests`), if it is no other entry's
    /// target, not `except`, and not a leftover being removed: asked with a preflight, whose 409 names the file
    /// there. Nil when the name is free or held by another file; Box's other answers are thrown.
    private func ownFile(at place: SentPlace, entryID: Int64, digests: Set<String>, except fileID: String?)
        async throws -> BoxItem?
    {
        do {
            _ = try await client.preflightUpload(name: place.name, parentID: place.parentID, size: 1)
            return nil
        } catch let error as BoxAPIError where error.isNameInUse {
            var mine = error.conflicts.first { conflict in
                conflict.kind == .file && conflict.sha1.map(digests.contains) == true && conflict.id != fileID
                    && (try? journal.isTarget(fileID: conflict.id, ofAnotherThan: entryID)) == false
                    && (try? journal.wasLeftover(fileID: conflict.id)) == false
            }
            // A 409's conflict names no folder: the file's removal as a leftover waits in this one's cleanups (model
            // seed 33015: a rename there met the file before its removal, which waited in none, had run).
            if mine?.parentID == nil { mine?.parentID = place.parentID }
            return mine
        }
    }

    /// Box may hold this very content already: the entry's last upload landed just as the file was renamed or
    /// moved here (the lifecycle then keeps the entry, so a crash cannot lose the new place). If Box's current
    /// version has this SHA-1 and this modification time, nothing is sent: the file is renamed or moved where
    /// the target says, if it is not there yet. Nil when content or time differ: the content goes up.
    private func placeOnly(
        fileID: String, parentID: String, name: String, entry: UploadEntry, digest: FileDigest.Digest
    ) async throws -> BoxItem? {
        let current = try await client.file(id: fileID)
        guard current.sha1 == digest.hex else { return nil }
        if let wanted = entry.contentModifiedAt {
            guard let held = current.contentModifiedAt, abs(held.timeIntervalSince(wanted)) < 1 else { return nil }
        }
        if current.name == name && current.parentID == parentID { return current }
        logger.info("moving \"\(current.name)\" to \"\(name)\", where it was renamed or moved during its upload",
                    metadata: ["file": "\(fileID)"])
        return try await client.updateFile(id: fileID, name: name, parentID: parentID)
    }

    private func simple(entry: UploadEntry, target: UploadTarget, digest: FileDigest.Digest) async throws -> BoxItem {
        switch target {
        case .newFile(let parentID, let name):
            return try await client.uploadFile(
                path: entry.stagingPath, name: name, parentID: parentID, contentModifiedAt: entry.contentModifiedAt,
                sha1: digest)
        case .newVersion(let fileID, _, _, let etag, _):
            return try await client.uploadVersion(
                fileID: fileID, path: entry.stagingPath, ifMatch: etag, contentModifiedAt: entry.contentModifiedAt,
                sha1: digest)
        }
    }

    /// 409/412 that our own earlier attempt caused are successes; everything else is classified.
    private func resolve(
        _ error: BoxAPIError, entryID: Int64, target: UploadTarget, digest: FileDigest.Digest, sentBefore: Set<String>
    ) async -> Outcome {
        if error.isNameInUse, target.fileID == nil,
            let mine = error.conflicts.first(where: { $0.kind == .file && $0.sha1 == digest.hex })
        {
            logger.info("an earlier attempt already stored this file", metadata: ["file": "\(mine.id)"])
            return await whole(mine) { .uploaded($0) }
        }
        if error.isNameInUse, target.fileID == nil,
            let earlier = error.conflicts.first(where: { $0.kind == .file && $0.sha1.map(sentBefore.contains) == true })
        {
            logger.info("an earlier attempt stored older content; sending this as its next version",
                        metadata: ["file": "\(earlier.id)"])
            return await whole(earlier) { .earlierUpload($0) }
        }
        // The name is held by a file of the mount's own making that it is removing (its removal failed, or
        // has not run yet): removed now, and the upload tried again.
        if error.isNameInUse, target.fileID == nil,
            let leftover = error.conflicts.lazy.compactMap({ try? journal.leftover(fileID: $0.id) }).first
        {
            logger.info("the name is held by a leftover of this mount's; removing it first",
                        metadata: ["file": "\(leftover.fileID)"])
            switch await leftover.remove(client: client, journal: journal) {
            case .removed:
                break
            case .retryLater(let removal), .interrupted(let removal):
                let retryAfter = (removal as? BoxAPIError)?.retryAfter
                return .failed(.transient(retryAfter: retryAfter, message: String(describing: removal)))
            case .changedSince, .refused:
                // Someone changed it since (412) or Box refuses to remove it: it stays, and this is the usual conflict.
                logger.info("the leftover stays on Box", metadata: ["file": "\(leftover.fileID)"])
                return .failed(UploadFailure.classify(error, forVersion: false))
            }
            return .failed(.transient(retryAfter: nil, message: "the name was held by a leftover of this mount's"))
        }
        // The name is held by another entry's upload (its version is the mount's own, or its content is what that
        // entry sent): a file renamed, moved or deleted here while it was on the wire, which landed at this name
        // an instant ago. Its follow-up (a move, or its removal) is on the way: not a conflict (model soak 20000).
        if error.isNameInUse, target.fileID == nil, let own = heldByOwnFile(error, entryID: entryID) {
            logger.info("the name is held by a file this mount uploaded for another entry; sending again after its move",
                        metadata: ["file": "\(own.item.id)"])
            return .failed(own.failure)
        }
        if error.isPreconditionFailed, let fileID = target.fileID {
            do {
                let current = try await client.file(id: fileID)
                if current.sha1 == digest.hex {
                    logger.info("Box already has this content", metadata: ["file": "\(fileID)"])
                    return .uploaded(current)
                }
            } catch let lookup as BoxAPIError where lookup.kind == .notFound {
                return .failed(.targetGone)
            } catch let lookup as BoxAPIError where lookup.isTransient {
                return .failed(.transient(retryAfter: lookup.retryAfter, message: lookup.description))
            } catch {}
        }
        return .failed(UploadFailure.classify(error, forVersion: target.fileID != nil))
    }

    /// `outcome` of Box's whole item for a file a 409 names in its mini form, which has no size and no dates: the
    /// core lists what landed as it is given, so a failed look (Box unreachable a moment) is a retry, never the
    /// mini form (model seed 401770801: a file listed with 0 bytes once its local copy was let go of). Any other
    /// failure (the file gone meanwhile) answers the mini form, as before.
    private func whole(_ mini: BoxItem, _ outcome: (BoxItem) -> Outcome) async -> Outcome {
        do {
            return outcome(try await client.file(id: mini.id))
        } catch let lookup as BoxAPIError where lookup.isTransient {
            return .failed(.transient(retryAfter: lookup.retryAfter, message: lookup.description))
        } catch {
            return outcome(mini)
        }
    }

    /// The file of this mount's own making (its version is the mount's own, or its content is what another entry
    /// sent) that holds the name a 409 is about, and how to wait for it: as long as another entry still journaled
    /// sent its content or aims at it, else a few tries.
    private func heldByOwnFile(_ error: BoxAPIError, entryID: Int64) -> (item: BoxItem, failure: UploadFailure)? {
        for conflict in error.conflicts where conflict.kind == .file {
            let sentByPending = conflict.sha1.map { (try? journal.wasSent(sha1: $0, byAnotherThan: entryID)) == true }
                ?? false
            if sentByPending || (try? journal.isTarget(fileID: conflict.id, ofAnotherThan: entryID)) == true {
                return (conflict, .nameHeldByPendingUpload)
            }
            if isOwnVersion(conflict) { return (conflict, .nameHeldByOwnFile) }
        }
        return nil
    }

    private func localSize(_ path: String) throws -> Int64 {
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            return (attributes[.size] as? NSNumber)?.int64Value ?? 0
        } catch {
            throw WriteBackError("the staging file \(path) cannot be read: \(error.localizedDescription)")
        }
    }
}
