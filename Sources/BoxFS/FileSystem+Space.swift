import BoxAPI
import Foundation
import WriteBack

extension FileSystem {
    /// Refuses a write that Box would refuse at upload time, so the writer sees the error instead of
    /// an upload failing later: past the account's upload limit is EFBIG; past its free space
    /// (counting what is written here and not yet uploaded) is ENOSPC. The writer never waits on Box for it
    /// once the account is known (the mount's start-up check): figures older than 10 seconds are fetched
    /// again in the background, and the write is measured against the last ones (a round trip per write
    /// that grows a file every 10 s, 50 ms on a WAN, was the one request past the minimum of a create:
    /// `RoundTripTests`). When Box cannot be asked, the write goes ahead (the upload would still be parked,
    /// never dropped, if Box refuses it).
    func checkSpace(_ number: UInt64, growingTo end: Int64) async throws(FSError) {
        guard let file = locals.withLock({ $0.file(number) }), !file.unlinked, end > file.item.size else { return }
        let current = file.item.size
        let user: BoxUser
        if let known = knownAccount(refreshingAfter: .seconds(10)) {
            user = known
        } else {
            do { user = try await currentUser(maxAge: .seconds(10)) } catch {
                logger.debug("quota unknown, write allowed: \(error)")
                return
            }
        }
        if let limit = user.maxUploadSize, limit > 0, end > limit {
            throw FSError(.tooLarge, "file would be \(end) bytes; this Box account may upload at most \(limit)")
        }
        guard user.spaceAmount > 0 else { return }
        let pending = locals.withLock { $0.pendingBytes }
        if user.spaceUsed + pending + (end - current) > user.spaceAmount {
            throw FSError(.noSpace, "the Box account is full (\(user.spaceUsed) of \(user.spaceAmount) bytes used)")
        }
    }

    /// The account as last fetched, or nil when it never was; older than `age`, it is fetched again in the
    /// background (one fetch at a time).
    private func knownAccount(refreshingAfter age: Duration) -> BoxUser? {
        let now = ContinuousClock.now
        let (known, refresh) = state.withLock { state -> (BoxUser?, Bool) in
            guard let account = state.account else { return (nil, false) }
            guard now - account.fetchedAt >= age, !state.accountRefreshing else { return (account.user, false) }
            state.accountRefreshing = true
            return (account.user, true)
        }
        if refresh {
            Task { [self] in
                _ = try? await currentUser(maxAge: age)
                state.withLock { $0.accountRefreshing = false }
            }
        }
        return known
    }
}

extension FileSystem {
    /// Runs a write to this machine's disk (a local copy, the journal); if the disk is full, the
    /// block cache gives way (evicting what was read, at least `bytes` and 16 MiB) and the write is
    /// tried once more. Written data gets ENOSPC only when evicting every cached block leaves no room.
    func withRoom<T, E: Error>(for bytes: Int, _ body: () throws(E) -> T) throws(E) -> T {
        do {
            return try body()
        } catch {
            guard gaveWay(after: error, bytes: bytes) else { throw error }
            return try body()
        }
    }

    /// `withRoom` for a write that suspends (the journal's grouped commits).
    func withRoom<T>(for bytes: Int, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            guard gaveWay(after: error, bytes: bytes) else { throw error }
            return try await body()
        }
    }

    /// Whether `error` is a full disk and the block cache freed room for another try.
    private func gaveWay(after error: any Error, bytes: Int) -> Bool {
        let full = (error as? FSError)?.errno == ENOSPC || (error as? WriteBackError)?.diskFull == true
        guard full, store.giveWay(max(Int64(bytes), 16 << 20)) else {
            if full { logger.warning("the disk holding the local copies and the journal is full: \(error)") }
            return false
        }
        return true
    }
}
