/// One of Box's limits as a bucket of `capacity` tokens: a request takes one, and a spent token comes back
/// one window (plus a margin) after it was spent. Pure state, the clock passed in (seconds).
///
/// Why tokens come back a window after they were spent rather than at a steady rate: Box (and boxsim)
/// count a sliding window ("N a minute"), and a steady-rate bucket stays under a sliding window only at
/// `capacity - burst` a minute, losing a tenth or more of the limit to its own burst. Returning each token a
/// window after it was spent is exactly the window Box counts: no 60 seconds ever hold more than N, a burst of
/// N goes at once, and a long copy runs at N a minute, the floor the limit sets.
///
/// Priority: `reserve` tokens are for foreground calls only. A background call takes a token while more than
/// `reserve` are left; so however much background work is queued, in this process or another sharing the
/// bucket, a listing finds a token at once or within the first token's return.
public struct TokenBucket: Sendable, Equatable {
    public var capacity: Int
    /// Seconds a spent token stays out: Box's window and a margin for the time a request takes to arrive.
    public var window: Double
    public var reserve: Int
    /// When the tokens still out were spent, oldest first.
    public private(set) var spent: [Double] = []

    public init(capacity: Int, window: Double, reserve: Int = 0, spent: [Double] = []) {
        self.capacity = max(1, capacity)
        self.window = window
        self.reserve = min(max(0, reserve), max(0, self.capacity - 1))
        self.spent = spent.sorted()
    }

    /// Tokens in the bucket at `now`.
    public func available(now: Double) -> Int {
        capacity - spent.count { isOut($0, now: now) }
    }

    /// Nil when a call of `priority` may take a token at `now`, else the seconds until one may.
    public func wait(now: Double, priority: CallPriority) -> Double? {
        let out = spent.filter { isOut($0, now: now) }
        let needed = priority == .foreground ? 1 : reserve + 1
        let free = capacity - out.count
        guard free < needed else { return nil }
        // The tokens come back oldest first; the call waits for as many as it lacks.
        let lacking = needed - free
        guard lacking <= out.count else { return window }
        // Never longer than a window: a spend after `now` is a clock set back (see `refill`).
        return min(window, max(0, out[lacking - 1] + window - now))
    }

    /// Takes a token at `now` (the caller checked `wait`), returning those whose window has passed.
    public mutating func take(now: Double) {
        refill(now: now)
        spent.append(now)
    }

    /// Returns the tokens spent a window ago or more. A time after `now` is a clock that went back (the wall
    /// clock, which the processes sharing a bucket have in common, set back): that token counts as spent now.
    public mutating func refill(now: Double) {
        spent.removeAll { $0 <= now - window }
        if spent.contains(where: { $0 > now }) {
            spent = spent.map { min($0, now) }.sorted()
        }
    }

    private func isOut(_ time: Double, now: Double) -> Bool { time > now - window }
}
