import Synchronization

/// Pre-signed download locations remembered for a short while, so that the ranges of a file after
/// the first skip the API call that yields the location: one round trip per range instead of two.
///
/// A location is reused only for the same file id and version (the key the caller gives), and only
/// within `lifetime` (Box's download URLs live ~15 minutes; the default stays well below). One that
/// the download host refuses (401/403/404/410) is forgotten and a fresh one asked for. Locations are
/// credentials: they are held in memory only and never logged.
public final class DownloadLocations: Sendable {
    public let lifetime: Duration
    public let capacity: Int
    private let entries = Mutex<[String: (location: String, expires: ContinuousClock.Instant)]>([:])

    public init(lifetime: Duration = .seconds(60), capacity: Int = 1024) {
        self.lifetime = lifetime
        self.capacity = capacity
    }

    static func key(fileID: String, version: String) -> String { fileID + "\n" + version }

    /// The remembered location for `key`, unless it has expired.
    func location(for key: String) -> String? {
        let now = ContinuousClock.now
        return entries.withLock { entries in
            guard let entry = entries[key] else { return nil }
            guard entry.expires > now else {
                entries[key] = nil
                return nil
            }
            return entry.location
        }
    }

    func remember(_ location: String, for key: String) {
        let now = ContinuousClock.now
        entries.withLock { entries in
            if entries.count >= capacity {
                entries = entries.filter { $0.value.expires > now }
                // Still full: the oldest goes (likely a file read already; a prepared one is newer).
                if entries.count >= capacity, let oldest = entries.min(by: { $0.value.expires < $1.value.expires }) {
                    entries[oldest.key] = nil
                }
            }
            entries[key] = (location, now + lifetime)
        }
    }

    func forget(_ key: String) {
        _ = entries.withLock { $0.removeValue(forKey: key) }
    }

    /// Locations held (tests).
    var count: Int { entries.withLock { $0.count } }
}
