import BoxAPI
import Foundation
import Logging

extension Uploader {
    /// Hands an event to the entry's lifecycle and carries out what it answers.
    func feed(_ id: Int64, _ event: UploadLifecycle.Event) {
        guard !isShutDown, var machine = machines[id] else { return }
        let actions = machine.handle(event)
        machines[id] = machine
        apply(id, actions)
    }

    func apply(_ id: Int64, _ actions: [UploadLifecycle.Action]) {
        for action in actions {
            switch action {
            case .wake(let time):
                arm(id, at: time)
            case .startUpload(let target, let generation):
                queued.append((id, target, generation))
                startQueued()
            case .saveTarget(let target):
                persist("save the target") { try journal.setTarget(id: id, target) }
                logger.debug("target", metadata: ["entry": "\(id)", "target": "\(target.logDescription)"])
            case .report(let item, let isFinal):
                // The last answer: listings stop hiding what the entry sent before the core shows what landed at its
                // own name (by then the local file's name hides it). After, a listing could come between the local
                // file's drop and this, and hide the file that landed (model seeds 31016, 32019: ENOENT).
                if isFinal { unanswered.drop(id) }
                let staging = (try? journal.entry(id: id))?.stagingPath ?? ""
                let target = machines[id]?.target ?? .newFile(parentID: item.parentID ?? "", name: item.name)
                emit(
                    .uploaded(entryID: id, item: item, target: target, stagingPath: staging, isFinal: isFinal))
                logger.debug("uploaded", metadata: [
                    "entry": "\(id)", "file": "\(item.id)", "final": "\(isFinal)", "boxName": "\(item.name)",
                    "target": "\(target.name)",
                ])
            case .conflict(let original, let copyName):
                logger.warning(
                    "conflict: \"\(original.name)\" changed on Box; the local content goes up as \"\(copyName)\"")
                emit(.conflict(entryID: id, original: original, copyName: copyName))
            case .recreated(let original):
                // Logged here rather than with the failure: a leftover's 404 is retried a few times before it
                // comes to this, and a deletion on Box comes to it at once.
                logger.warning(
                    "upload of \"\(original.name)\": the Box file it was to update is gone; the local content goes up as a new file",
                    metadata: ["file": "\(original.fileID ?? "")"])
                emit(.recreated(entryID: id, original: original))
            case .keptAside(let path, let mountPath, let isFinal):
                logger.warning(
                    "upload of \"\(mountPath)\": its folder is gone from Box; the local content is kept in \(path)")
                emit(.keptAside(entryID: id, path: path, mountPath: mountPath, isFinal: isFinal))
            case .stray(let item):
                logger.info("an upload landed at a name since replaced; removing it", metadata: ["file": "\(item.id)"])
                emit(.stray(entryID: id, item: item))
            case .noteFailure(let failure, let target):
                note(id, failure, name: target.name)
            case .forget:
                machines.removeValue(forKey: id)
                urgent.removeAll { $0 == id }
                timers.removeValue(forKey: id)?.cancel()
                progress.remove(id)
                persist("remove a finished entry") { try journal.remove(id: id) }
                unanswered.drop(id)
            }
        }
    }

    private func note(_ id: Int64, _ failure: UploadFailure, name: String) {
        persist("record a failure") { try journal.noteFailure(id: id, failure.summary) }
        recentErrors.append(.init(date: Date(), entryID: id, name: name, failure: failure))
        if recentErrors.count > configuration.recentErrorLimit { recentErrors.removeFirst() }
        switch failure {
        case .transient, .contentChanged, .targetMoved, .targetRemovedHere, .nameHeldByOwnFile, .nameHeldByPendingUpload:
            logger.info("upload of \"\(name)\" will be retried: \(failure.summary)")
        case .changedOnBox, .nameTaken:
            logger.warning("upload of \"\(name)\": \(failure.summary); the local content goes up as a new file")
        case .targetGone:
            logger.info("upload of \"\(name)\": \(failure.summary)")  // what follows is logged with `.recreated`
        default:
            logger.error("upload of \"\(name)\" cannot proceed: \(failure.summary)")
        }
        emit(.failed(entryID: id, failure: failure))
    }

    /// A timer that ticks the entry at `time` (replacing an earlier one).
    private func arm(_ id: Int64, at time: Double) {
        timers.removeValue(forKey: id)?.cancel()
        let wait = max(0, time - now())
        timers[id] = Task { [weak self] in
            try? await Task.sleep(for: .seconds(wait))
            guard !Task.isCancelled, let self else { return }
            await self.feed(id, .tick(now: self.now()))
        }
    }

    /// Starts queued attempts while fewer than `maxConcurrentUploads` run.
    func startQueued() {
        while running.count < configuration.maxConcurrentUploads, !isShutDown, let index = nextQueued() {
            let next = queued.remove(at: index)
            urgent.removeAll { $0 == next.id }
            let attempt = self.attempt, settle = self.beforeSending
            runningFolders[next.id] = next.target.parentID
            // Preferring the uploader's executor: the attempt's journal calls run on its thread, not on the pool.
            running[next.id] = Task(executorPreference: executor) { [weak self] in
                await settle?(next.target.parentID)
                let outcome = await attempt.run(entryID: next.id, target: next.target, generation: next.generation)
                await self?.finished(next.id, target: next.target, generation: next.generation, outcome: outcome)
            }
        }
    }

    private func finished(_ id: Int64, target attempted: UploadTarget, generation: Int64, outcome: UploadAttempt.Outcome) {
        running.removeValue(forKey: id)
        runningFolders.removeValue(forKey: id)
        defer { startQueued() }
        guard !isShutDown else { return }
        if machines[id] == nil, case .uploaded(let item) = outcome {
            // Discarded while the attempt ran, and it landed: say so (with where it went), so the core
            // can delete a new file nobody wants.
            landedAfterDiscard[id] = item
            emit(.uploaded(entryID: id, item: item, target: attempted, stagingPath: "", isFinal: true))
            return
        }
        switch outcome {
        case .uploaded(let item):
            // Not where the entry wants it (renamed or moved here while it was sent, or a new version keeps Box's
            // name): the entry lives on, journaled with its place, until an attempt that finds Box holding this
            // content has moved the file there.
            let misplaced = machines[id].map { machine in
                machine.target.name != item.name || item.parentID.map { $0 != machine.target.parentID } == true
            }
            feed(id, .uploaded(item, generation: misplaced == true ? 0 : generation, now: now()))
        case .placed(let item):
            feed(id, .uploaded(item, generation: generation, now: now()))
        case .keptAside(let path, let mountPath):
            feed(id, .keptAside(path: path, mountPath: mountPath, generation: generation, now: now()))
        case .earlierUpload(let item):
            feed(id, .uploaded(item, generation: 0, now: now()))  // older content: never the last upload
        case .failed(let failure):
            // A 404, 409 or 412 about a target the entry left meanwhile (say a rename over another file deleted
            // the one this attempt updated) is no conflict and no deletion of the file the entry now goes to.
            let aboutTheOldTarget = machines[id].map { $0.target != attempted } ?? false
                && [.changedOnBox, .nameTaken, .targetGone, .targetRemovedHere].contains(failure)
            feed(id, .failed(aboutTheOldTarget ? .targetMoved : failure, now: now(), wallClock: Date()))
        case .vanished:
            machines.removeValue(forKey: id)
            urgent.removeAll { $0 == id }
            progress.remove(id)
            unanswered.drop(id)
        }
        if outcome.isBoxAnswer, machines[id] != nil { settled(id, attempted: attempted, outcome: outcome) }
    }

    /// A Box answer was applied (the entry's target saved, the core told): the place the file that landed was
    /// sent to, and the place this attempt sent to, need no look any more. Forgotten only now, after the save: a
    /// kill before it leaves the place journaled, so the next run finds the file there again (model seed 30056:
    /// forgotten as the attempt found it, then a kill, and the file stayed on Box under a name the mount had
    /// renamed away). Listings then show what landed, as the core knows it now.
    private func settled(_ id: Int64, attempted: UploadTarget, outcome: UploadAttempt.Outcome) {
        let landed: BoxItem? = switch outcome {
        case .uploaded(let item), .placed(let item), .earlierUpload(let item): item
        case .keptAside, .failed, .vanished: nil
        }
        var places = [attempted.sentPlace]
        if let landed, let parentID = landed.parentID { places.append(SentPlace(parentID: parentID, name: landed.name)) }
        for place in Set(places.compactMap { $0 }) {
            persist("forget a place sent to") { try journal.forgetSentPlace(id: id, place) }
        }
        mirrorUnanswered(id)
    }

    /// Journal writes from the uploader: a failure is logged, never fatal (the entry stays).
    private func persist(_ what: String, _ body: () throws -> Void) {
        do { try body() } catch { logger.error("cannot \(what) in the upload journal: \(error)") }
    }
}
