import Hummingbird
import Synchronization

/// Per-request facts that the outer logging middleware reads after inner handlers have run
/// (the context itself is a value copied down the chain, so these live in a shared, locked box).
final class RequestState: Sendable {
    let requestID: String
    private let values = Mutex<(userID: Int64?, note: String?)>((nil, nil))

    init() {
        let alphabet = Array("0123456789abcdefghijklmnopqrstuvwxyz")
        requestID = String((0..<14).map { _ in alphabet.randomElement()! })
    }

    var userID: Int64? {
        get { values.withLock { $0.userID } }
        set { values.withLock { $0.userID = newValue } }
    }
}

/// The request context of every boxsim route.
struct BoxContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let state = RequestState()
    /// The authenticated user (set by `AuthMiddleware`).
    var user: UserRecord?
    var token: TokenRecord?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
    }

    /// Request bodies read whole (JSON, forms) are small; uploads stream instead.
    var maxUploadSize: Int { 8 * 1024 * 1024 }

    /// The authenticated user; only routes behind `AuthMiddleware` call this.
    func requireUser() throws -> UserRecord {
        guard let user else { throw BoxError.unauthorized() }
        return user
    }
}
