import Foundation
import Hummingbird

/// The control API's view of the rate limits (only with `--control`): `GET /_control/limits` answers the limits in
/// force and how many requests each refused; `DELETE /_control/limits` forgets the windows and counts. The limits
/// themselves are settings (`PUT /_control/settings` `rate_limit_per_minute`, `box_limits`).
struct LimitControlRoutes: Sendable {
    let settings: ServerSettings
    let limiter: RateLimiter
    let boxLimiter: BoxLimiter

    func register(on router: Router<BoxContext>) {
        router.get("_control/limits") { _, _ in
            let values = settings.current
            var boxLimits: [(String, JSONValue)] = [("limits", values.boxLimits?.json ?? .null)]
            if case .object(let counts) = boxLimiter.countsJSON { boxLimits += counts }
            return jsonResponse(.object([
                ("box_limits", .object(boxLimits)),
                ("rate_limit_per_minute", .object([
                    ("limit", values.rateLimitPerMinute.map { .int(Int64($0)) } ?? .null),
                    ("refused", .int(Int64(limiter.refused))),
                ])),
            ]))
        }
        router.delete("_control/limits") { _, _ in
            limiter.reset()
            boxLimiter.reset()
            return Response(status: .noContent)
        }
    }

    /// The `box_limits` of a settings body: `true` Box's numbers, `false`/`null` off, an object the numbers in force
    /// (or Box's) with those it names changed; absent: `current`.
    static func boxLimits(_ body: [String: Any], current: BoxLimitProfile?) throws -> BoxLimitProfile? {
        guard body.keys.contains("box_limits") else { return current }
        let value = body["box_limits"]
        if let object = value as? [String: Any] {
            var profile = current ?? BoxLimitProfile()
            try profile.apply(object)
            return profile
        }
        if let on = value as? Bool { return on ? BoxLimitProfile() : nil }
        if value is NSNull { return nil }
        throw BoxError.badRequest("box_limits must be true, false, null or an object of limits")
    }
}
