/// Whether a user waits on a Box call. When the pace leaves too few tokens, background calls wait and
/// foreground calls take the next one (`TokenBucket`): a listing, a lookup, the read a user waits on, a
/// rename are foreground; read-ahead's location lookups, uploads, the event stream are background.
///
/// Carried by the task (a task local), so the code that starts background work says so once
/// (`CallPriority.background { ... }`) and every call made inside, by any layer, inherits it, child
/// tasks and `Task {}` included. Uploads are background wherever they are made.
public enum CallPriority: String, Sendable {
    case foreground, background

    @TaskLocal public static var current: CallPriority = .foreground

    /// Runs `body` with its Box calls in the background.
    public static func background<T>(
        isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T
    ) async rethrows -> T {
        try await $current.withValue(.background, operation: body, isolation: isolation)
    }
}
