import Foundation

/// The buckets of one Box account: what the processes pacing that account share (`PacingStateFile`).
/// Only the spending times are shared; each process brings its own numbers (`PacingLimits`), so two mounts
/// with different options still count each other's calls.
public struct PacingState: Sendable, Equatable {
    /// Spending times per limit, oldest first.
    public private(set) var spent: [PacedLimit: [Double]] = [:]

    public init() {}

    /// The bucket of `limit` under `limits`' numbers at `now`.
    public func bucket(_ limit: PacedLimit, limits: PacingLimits) -> TokenBucket {
        TokenBucket(
            capacity: limits[limit], window: limit.window + limit.margin, reserve: Self.reserve(limit, limits),
            spent: spent[limit] ?? [])
    }

    /// Takes a token of every limit in `paced` at once, or none: nil when taken, else the seconds until all
    /// of them may be (the longest wait). Limits numbered 0 are not paced.
    public mutating func take(_ paced: [PacedLimit], limits: PacingLimits, priority: CallPriority, now: Double)
        -> Double?
    {
        let active = paced.filter { limits[$0] > 0 }
        var buckets = active.map { bucket($0, limits: limits) }
        let waits = buckets.compactMap { $0.wait(now: now, priority: priority) }
        if let longest = waits.max() { return longest }
        for index in buckets.indices {
            buckets[index].take(now: now)
            spent[active[index]] = buckets[index].spent
        }
        return nil
    }

    /// Counts a call already made (without waiting for it): its tokens are spent at `now`, over the limit or not.
    public mutating func record(_ paced: [PacedLimit], limits: PacingLimits, now: Double) {
        for limit in paced where limits[limit] > 0 {
            var bucket = bucket(limit, limits: limits)
            bucket.take(now: now)
            spent[limit] = bucket.spent
        }
    }

    /// Tokens only foreground calls may take: a twentieth of the calls (50 of Box's 1,000 a minute), so a
    /// listing never waits behind read-ahead, uploads' calls or the event stream. None of the uploads or
    /// searches limits: uploads are all background and searches all foreground, so no one is ahead there.
    static func reserve(_ limit: PacedLimit, _ limits: PacingLimits) -> Int {
        limit == .callsPerMinute ? max(1, limits[limit] / 20) : 0
    }

    /// One line per limit: its name, then its spending times (seconds since 1970, to the microsecond).
    public func encoded() -> String {
        PacedLimit.allCases.compactMap { limit in
            guard let times = spent[limit], !times.isEmpty else { return nil }
            return ([limit.rawValue] + times.map { String(format: "%.6f", $0) }).joined(separator: " ")
        }.joined(separator: "\n") + "\n"
    }

    /// The state `encoded` wrote; whatever does not parse (a line cut short when a process died writing
    /// it) is left out: the cost is a few calls not counted, which the retry policy covers.
    public init(decoding text: String) {
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard let name = fields.first, let limit = PacedLimit(rawValue: String(name)) else { continue }
            spent[limit] = fields.dropFirst().compactMap { Double($0) }.filter(\.isFinite).sorted()
        }
    }
}
