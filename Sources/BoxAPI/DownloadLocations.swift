import Synchronization

/// Pre-signed download locations remembered for a short while, so that the ranges of a file after
/// the first skip the API call that yields the location: one round trip per range instead of two.
///
/// A location is reused only for the same file id and version (the key the caller gives), and only
/// within `lifetime` (Box's download URLs live ~15 minutes; the default stays well below). One that
/// the download host refuses (401/403/404/410) is forgotten and a fresh one asked for. Locations are
/// credentials: they are held in memory only and never logged.
///
/// One API call per file version: while one caller asks the API for a key's location, the others wait
/// for its answer (`lookUp`) instead of asking too, as the first ranges of a file read from its start
/// do (they start together). A location learnt ahead of a read (`prepareDownload`) is kept until it is
/// used or expires: the capacity evicts only locations used already (else a walk through a folder of
/// thousands of files could evict what was learnt for the next files before they are read); learnt-ahead
/// ones may exceed it up to `aheadLimit`, which look-ahead (a few files per folder) never reaches.
public final class DownloadLocations: Sendable {
    public let lifetime: Duration
    public let capacity: Int
    /// The most locations held while some are learnt ahead and not used yet.
    var aheadLimit: Int { capacity * 4 }
    private let state = Mutex(State())

    private struct Entry {
        var location: String
        var expires: ContinuousClock.Instant
        /// Learnt ahead of a read and not used yet.
        var isAhead: Bool
    }

    private struct State {
        var entries: [String: Entry] = [:]
        /// Keys whose location one caller is asking the API for, with the callers waiting for its answer.
        var asking: [String: [CheckedContinuation<String?, Never>]] = [:]
    }

    /// What a caller that needs a key's location should do.
    enum Lookup {
        /// Use this remembered location.
        case known(String)
        /// Nobody knows it: the caller asks the API, then must call `settle` (with nil when it got none).
        case ask
    }

    public init(lifetime: Duration = .seconds(60), capacity: Int = 1024) {
        self.lifetime = lifetime
        self.capacity = capacity
    }

    static func key(fileID: String, version: String) -> String { fileID + "\n" + version }

    /// The remembered location for `key`; while another caller is asking the API for it, its answer.
    /// `.ask` makes the caller the one asking (it must `settle`). A waiter whose asker got no location
    /// (the API served content itself, or failed) asks in turn.
    ///
    /// A waiter waits for the asker's request, however long its retries take (as long as its own
    /// request would); the asker settles on every path, so nobody waits for nothing.
    func lookUp(_ key: String) async -> Lookup {
        while true {
            if let lookup = claim(key) { return lookup }
            if let location = await asked(key) { return .known(location) }
        }
    }

    /// The answer of the caller asking for `key` (nil: it got none, or nobody asks any more).
    private func asked(_ key: String) async -> String? {
        await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
            let now = ContinuousClock.now
            let settled: String?? = state.withLock { state in
                guard state.asking[key] != nil else { return .some(Self.take(key, from: &state, now: now)) }
                state.asking[key]?.append(continuation)
                return .none
            }
            if let settled { continuation.resume(returning: settled) }
        }
    }

    /// `.known` or `.ask` (the caller now asks), or nil while another caller asks.
    private func claim(_ key: String) -> Lookup? {
        let now = ContinuousClock.now
        return state.withLock { state in
            if let location = Self.take(key, from: &state, now: now) { return .known(location) }
            guard state.asking[key] == nil else { return nil }
            state.asking[key] = []
            return .ask
        }
    }

    /// Whether the caller should ask the API for `key`'s location ahead of a read: neither known nor
    /// being asked for. True makes the caller the one asking (it must `settle`).
    func claimAhead(_ key: String) -> Bool {
        let now = ContinuousClock.now
        return state.withLock { state in
            if let entry = state.entries[key], entry.expires > now { return false }
            guard state.asking[key] == nil else { return false }
            state.asking[key] = []
            return true
        }
    }

    /// The asker's answer for `key` (nil: it got no location): remembered (`ahead`: learnt ahead of a
    /// read) and handed to every caller waiting for it.
    func settle(_ key: String, with location: String?, ahead: Bool = false) {
        let now = ContinuousClock.now
        let waiters = state.withLock { state -> [CheckedContinuation<String?, Never>] in
            if let location { remember(location, for: key, ahead: ahead, in: &state, now: now) }
            return state.asking.removeValue(forKey: key) ?? []
        }
        waiters.forEach { $0.resume(returning: location) }
    }

    /// The remembered location for `key`, unless it has expired (tests).
    func location(for key: String) -> String? {
        let now = ContinuousClock.now
        return state.withLock { Self.take(key, from: &$0, now: now) }
    }

    /// Remembers a location outright (tests).
    func remember(_ location: String, for key: String, ahead: Bool = false) {
        let now = ContinuousClock.now
        state.withLock { remember(location, for: key, ahead: ahead, in: &$0, now: now) }
    }

    func forget(_ key: String) {
        _ = state.withLock { $0.entries.removeValue(forKey: key) }
    }

    /// Locations held (tests).
    var count: Int { state.withLock { $0.entries.count } }

    /// The location for `key` if it has not expired, which now counts as used.
    private static func take(_ key: String, from state: inout State, now: ContinuousClock.Instant) -> String? {
        guard var entry = state.entries[key] else { return nil }
        guard entry.expires > now else {
            state.entries[key] = nil
            return nil
        }
        if entry.isAhead {
            entry.isAhead = false
            state.entries[key] = entry
        }
        return entry.location
    }

    private func remember(
        _ location: String, for key: String, ahead: Bool, in state: inout State, now: ContinuousClock.Instant
    ) {
        if state.entries[key] == nil, state.entries.count >= capacity {
            state.entries = state.entries.filter { $0.value.expires > now }
            // Still full: the oldest used one goes; learnt-ahead ones only past `aheadLimit`.
            while state.entries.count >= capacity {
                let used = state.entries.filter { !$0.value.isAhead }
                let pool = used.isEmpty && state.entries.count >= aheadLimit ? state.entries : used
                guard let oldest = pool.min(by: { $0.value.expires < $1.value.expires }) else { break }
                state.entries[oldest.key] = nil
            }
        }
        state.entries[key] = Entry(location: location, expires: now + lifetime, isAhead: ahead)
    }
}
