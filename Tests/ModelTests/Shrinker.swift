import Foundation

/// Delta debugging (ddmin) of a failing step list: drops ever smaller chunks while a fresh run still fails the same
/// way, first cutting everything after the step that diverged. Each try is a whole run on a new boxsim; it stops
/// at the deadline with the shortest list found so far.
struct Shrinker {
    var deadline: Date
    /// Runs the steps; answers the divergence, if any.
    var attempt: ([Step]) -> Divergence?
    private(set) var tries = 0

    init(deadline: Date, attempt: @escaping ([Step]) -> Divergence?) {
        self.deadline = deadline
        self.attempt = attempt
    }

    private mutating func stillFails(_ steps: [Step], like signature: String) -> Divergence? {
        tries += 1
        guard let divergence = attempt(steps), divergence.signature == signature else { return nil }
        return divergence
    }

    mutating func shrink(_ steps: [Step], failing first: Divergence) -> (steps: [Step], divergence: Divergence) {
        var best = (steps: steps, divergence: first)
        let signature = first.signature
        // Failures that need a timing come back only now and then: the prefix, the biggest cut, gets three tries.
        if let step = first.step, step + 1 < steps.count {
            let prefix = Array(steps[...step])
            for _ in 0..<3 where Date() < deadline {
                if let divergence = stillFails(prefix, like: signature) { best = (prefix, divergence); break }
            }
        }
        var chunks = 2
        while best.steps.count >= 2, Date() < deadline {
            let size = Int((Double(best.steps.count) / Double(chunks)).rounded(.up))
            var reduced = false
            for start in stride(from: 0, to: best.steps.count, by: size) where Date() < deadline {
                var candidate = best.steps
                candidate.removeSubrange(start..<min(start + size, candidate.count))
                if let divergence = stillFails(candidate, like: signature) {
                    best = (candidate, divergence)
                    chunks = max(chunks - 1, 2)
                    reduced = true
                    break
                }
            }
            if !reduced {
                if chunks >= best.steps.count { break }
                chunks = min(best.steps.count, chunks * 2)
            }
        }
        return best
    }
}
