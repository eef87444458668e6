import BoxAPI
import Foundation
import Logging
import Synchronization

/// Follows the user's Box event stream for a mount, so changes made elsewhere show within a moment instead
/// of after `dir_cache_ttl`.
///
/// One task: catch up (`GET /2.0/events?stream_type=changes` after the saved position, page by page, each
/// page applied to the tree), then long-poll the realtime server `OPTIONS /2.0/events` names until it
/// answers `new_change` (catch up again) or `reconnect`, up to its `max_retries` polls, then ask for a new
/// server. Any failure puts the mount back on `dir_cache_ttl` (`fallback`) and the loop waits (1 s doubling
/// to 60 s) before starting over from the position it has; a position Box rejects (too old) restarts the
/// stream at `now` and drops every cached listing, as does a saved position older than Box keeps events (Box
/// answers it with no error). Events Box sends again are skipped (`SeenEvents`). The position is saved after each
/// page applied.
public final class EventFollower: Sendable {
    let filesystem: FileSystem
    let client: BoxClient
    let positionFile: EventPositionFile?
    let logger: Logger
    private let task = OwnLock<Task<Void, Never>?>("the event follower's task", nil)

    public init(filesystem: FileSystem, client: BoxClient, positionFile: EventPositionFile?, logger: Logger) {
        self.filesystem = filesystem
        self.client = client
        self.positionFile = positionFile
        self.logger = logger
    }

    public func start() {
        filesystem.updateEventStream { $0.enter(.starting) }
        let follower = self
        // The stream is background work: when the pace is tight, what a user waits on goes first.
        task.withLock { $0 = Task { await CallPriority.background { await follower.run() } } }
    }

    /// Stops following (the long poll in flight is cancelled) and waits for the last position to be saved.
    public func stop() async {
        let running = task.withLock { task in defer { task = nil }; return task }
        running?.cancel()
        await running?.value
        await positionFile?.flush()
        filesystem.updateEventStream { $0.enter(.off) }
    }

    private func run() async {
        let position = positionFile?.read()
        if let position, let age = positionFile?.age(), age > Self.positionTrustedFor {
            // Box answers a position past its retention from the oldest event it still has, with nothing to say
            // that events were missed: only the age of the saved position tells, and then everything is listed anew.
            logger.notice("event stream: the saved position \(position) is \(Int(age / 86_400)) days old, older than Box keeps events; listing everything again")
            filesystem.dropAllListings()
            await positionFile?.remove()
            return await following(from: nil)
        }
        if let position { logger.info("event stream: resuming at position \(position)") }
        await following(from: position)
    }

    /// How long a saved position is caught up from: Box keeps a user's `changes` events 21 days
    /// (developer.box.com, guides/events/parameters/stream-types); a day less leaves room for clocks.
    static let positionTrustedFor: Double = 20 * 86_400

    private func following(from start: String?) async {
        var position = start
        var seen = SeenEvents()
        var backoff = 1.0
        var lastFailure: String?
        while !Task.isCancelled {
            do {
                position = try await catchUp(from: position, seen: &seen)
                filesystem.streamCaughtUp()
                backoff = 1
                if lastFailure != nil { logger.notice("event stream: following again") }
                lastFailure = nil
                try await poll(&position, seen: &seen)
            } catch is CancellationError {
                return
            } catch {
                if Task.isCancelled { return }
                let failure = error as? BoxAPIError
                // A token that may not read the stream (a downscoped one, say) is refused again and again:
                // asked rarely, and said once; a failure that repeats is logged once, not at every retry.
                let refused = failure?.status == 403
                let reason = failure.map { refused ? "unavailable to this token (\($0.description))" : $0.description }
                    ?? String(describing: error)
                if let failure, refused {
                    if lastFailure == nil {
                        logger.warning(
                            "event stream refused for this token (\(failure.description)): changes made elsewhere show after dir_cache_ttl; asking again every \(Int(Self.refusedRetry)) s")
                    }
                } else if lastFailure == nil {
                    logger.warning("event stream failed (listings are trusted for dir_cache_ttl until it is back): \(reason)")
                } else {
                    logger.debug("event stream still failing: \(reason)")
                }
                lastFailure = reason
                filesystem.updateEventStream { $0.enter(.fallback, error: reason) }
                filesystem.streamCatchUpFailed()
                // While Box is out of reach, the stream is tried every few seconds: its call is what notices Box
                // answering again (and then the waiting uploads go, `Connectivity.whenReachedAgain`).
                let wait = refused ? Self.refusedRetry
                    : client.connectivity.offline != nil ? min(backoff, Self.offlineRetry) : backoff
                try? await Task.sleep(for: .milliseconds(Int(wait * 1000)))
                backoff = min(backoff * 2, 60)
            }
        }
    }

    /// The least time between two fetches of events a long poll's wake-up asks for (`GET /2.0/events`): a
    /// change made elsewhere after a quiet while is fetched at once, one during a busy while within this.
    public static let minimumFetchInterval = Duration.seconds(2)

    /// Seconds between asks while Box refuses the stream to this token (403).
    static let refusedRetry = 900.0
    /// The longest wait between tries while Box is out of reach: how soon its return is noticed.
    static let offlineRetry = 3.0

    /// Long-polls realtime servers until a failure; each `new_change` is caught up on, at most one fetch per
    /// `minimumFetchInterval`.
    private func poll(_ position: inout String?, seen: inout SeenEvents) async throws {
        var lastFetch = ContinuousClock.now
        while !Task.isCancelled {
            let server = try await client.realtimeServer()
            var polls = 0
            pollThisServer: while polls < max(server.maxRetries, 1), !Task.isCancelled {
                polls += 1
                let answer = try await client.longPoll(server, position: position ?? "0")
                try Task.checkCancellation()
                switch answer {
                case .newChange:
                    // Every download of the mount's own is an event of the user's stream and wakes the poll: the
                    // wake-ups are gathered into one fetch per interval, so they cost no more than that.
                    try await Task.sleep(until: lastFetch + Self.minimumFetchInterval, clock: .continuous)
                    position = try await catchUp(from: position, seen: &seen)
                    lastFetch = .now
                case .reconnect:
                    break pollThisServer
                case .other(let message):
                    logger.debug("event long poll answered \(message)")
                    position = try await catchUp(from: position, seen: &seen)
                    break pollThisServer
                }
            }
        }
        throw CancellationError()
    }

    /// Applies every event after `position` (nil: starts at `now`) and answers the position reached.
    private func catchUp(from position: String?, seen: inout SeenEvents) async throws -> String {
        guard var position else { return try await startAtNow() }
        while true {
            let page: BoxEventPage
            do {
                page = try await client.events(after: position)
            } catch let error as BoxAPIError where Self.rejectsPosition(error) {
                logger.warning("event stream: Box no longer has position \(position) (\(error)); starting at now")
                filesystem.dropAllListings()
                return try await startAtNow()
            }
            let events = seen.unseen(page.events)
            if events.count < page.events.count {
                logger.debug("event stream: \(page.events.count - events.count) events Box sent again skipped")
            }
            if !events.isEmpty { await filesystem.applyRemoteChanges(events) }
            let moved = page.nextStreamPosition != position
            position = page.nextStreamPosition
            positionFile?.save(position)
            reached(position)
            if page.events.count < BoxClient.eventPageLimit || !moved { return position }
        }
    }

    /// The stream's current position; listings cached before it may miss what happened before it, so all go.
    private func startAtNow() async throws -> String {
        let position = try await client.eventStreamPosition()
        filesystem.dropAllListings()
        positionFile?.save(position)
        reached(position)
        logger.info("event stream: following from position \(position)")
        return position
    }

    private func reached(_ position: String) {
        filesystem.updateEventStream { state in
            state.enter(.following)
            state.position = position
        }
    }

    /// Box's answer to a stream position it does not have (too old, or not one of its positions).
    static func rejectsPosition(_ error: BoxAPIError) -> Bool {
        let status = error.status
        return status == 400 || status == 404 || status == 410
    }
}
