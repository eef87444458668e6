import Synchronization

/// Settings that can change while boxsim runs (command line defaults, changed through the control API).
final class ServerSettings: Sendable {
    struct Values: Sendable {
        var accessTokenLifetime: Int64 = 3600
        /// The authorize page approves at once instead of showing a consent form.
        var autoApprove = false
    }

    private let values: Mutex<Values>

    init(_ initial: Values) { values = Mutex(initial) }

    var current: Values { values.withLock { $0 } }

    func update(_ change: (inout Values) -> Void) {
        values.withLock { change(&$0) }
    }
}
