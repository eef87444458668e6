import BoxAPI

/// What asking Box to delete a leftover came to (see `Leftover.remove`).
public enum LeftoverRemoval: Sendable {
    /// Box no longer holds it (deleted now, or gone already); the journal says so.
    case removed
    /// Changed on Box since it landed (412): someone else's file now; the journal no longer holds it.
    case changedSince
    /// Box refuses to remove it for good (e.g. a 403); the journal no longer holds it.
    case refused(Error)
    /// Worth asking again later (5xx, 429, offline); the journal still holds it.
    case retryLater(Error)
    /// Cut short by the mount stopping (its client shut down, its task cancelled): nothing was learnt, and the
    /// journal still holds it for the next mount to remove.
    case interrupted(Error)
}

extension Leftover {
    /// Asks Box to delete this leftover, only as it was (`If-Match` its etag), and journals the outcome. The one
    /// place both the core's cleanups and an upload that meets a leftover at its name remove one.
    public func remove(client: BoxClient, journal: UploadJournal?) async -> LeftoverRemoval {
        let outcome: LeftoverRemoval
        do {
            try await client.deleteFile(id: fileID, ifMatch: etag)
            outcome = .removed
        } catch let error as BoxAPIError where error.kind == .notFound {
            outcome = .removed  // gone already (trashed by another of the mount's own steps)
        } catch let error as BoxAPIError where error.kind == .preconditionFailed {
            outcome = .changedSince
        } catch let error as BoxAPIError where error.isClientShutDown {
            // Seed 65932704: a kill during the removal was taken for Box refusing it, and the journal forgot it.
            return .interrupted(error)
        } catch let error as CancellationError {
            return .interrupted(error)
        } catch let error as BoxAPIError where error.isTransient || client.connectivity.offline != nil {
            return .retryLater(error)
        } catch {
            if client.connectivity.offline != nil { return .retryLater(error) }
            outcome = .refused(error)
        }
        if case .removed = outcome {
            try? await journal?.forgetLeftover(fileID: fileID)
        } else {
            try? await journal?.dropLeftover(fileID: fileID)
        }
        return outcome
    }
}
