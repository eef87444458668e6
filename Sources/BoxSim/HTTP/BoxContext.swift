import Hummingbird
import NIOCore
import Synchronization

/// Per-request facts that the outer logging middleware reads after inner handlers have run
/// (the context itself is a value copied down the chain, so these live in a shared, locked box).
final class RequestState: Sendable {
    struct Values: Sendable {
        var userID: Int64?
        /// The `grant_type` of an `/oauth2/token` form (for the request log; not a secret).
        var grantType: String?
        /// A fault rule reshapes the response body (bandwidth cap, cut): it must be made of real bytes,
        /// not sendfile markers.
        var bodyReshaped = false
        /// Faults that changed this request's outcome, for the request log (`FaultMiddleware`).
        var faults: [String] = []
        /// The status a request had when a fault dropped its connection before the answer (`after_handling`).
        var lostAnswerStatus: Int?
    }

    let requestID: String
    private let values = Mutex(Values())

    init() {
        let alphabet = Array("0123456789abcdefghijklmnopqrstuvwxyz")
        requestID = String((0..<14).map { _ in alphabet.randomElement()! })
    }

    var current: Values { values.withLock { $0 } }

    func update(_ change: (inout Values) -> Void) {
        values.withLock { change(&$0) }
    }

    var userID: Int64? {
        get { current.userID }
        set { update { $0.userID = newValue } }
    }
}

/// The request context of every boxsim route.
struct BoxContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let state = RequestState()
    /// The authenticated user (set by `AuthMiddleware`).
    var user: UserRecord?
    var token: TokenRecord?
    /// The connection (fault rules drop it or watch whether the client is still there).
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }

    /// Request bodies read whole (JSON, forms) are small; uploads stream instead.
    var maxUploadSize: Int { 8 * 1024 * 1024 }

    /// The authenticated user; only routes behind `AuthMiddleware` call this.
    func requireUser() throws -> UserRecord {
        guard let user else { throw BoxError.unauthorized() }
        return user
    }
}
