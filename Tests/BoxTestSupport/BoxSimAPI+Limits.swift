import Foundation

/// boxsim's `--box-limits` profile (docs/BOXSIM.md "Box's rate limits").
extension BoxSimAPI {
    /// Turns Box's per-user limits on with these numbers (names: `calls_per_minute`, `uploads_per_minute`,
    /// `searches_per_second`, `searches_per_minute`; the others Box's); an empty dictionary: Box's own numbers.
    public func setBoxLimits(_ limits: [String: Int] = [:]) throws {
        try call("PUT", "/_control/settings", json: ["box_limits": limits.isEmpty ? true as Any : limits as Any])
    }

    public func clearBoxLimits() throws {
        try call("PUT", "/_control/settings", json: ["box_limits": NSNull()])
    }

    /// How many requests the box limits answered 429 (`refused`), and per limit how many exceeded it.
    public func boxLimitRefusals() throws -> (refused: Int, exceeded: [String: Int]) {
        let limits = try call("GET", "/_control/limits")["box_limits"] as? [String: Any] ?? [:]
        return ((limits["refused"] as? NSNumber)?.intValue ?? 0,
                (limits["exceeded"] as? [String: Any] ?? [:]).compactMapValues { ($0 as? NSNumber)?.intValue })
    }
}
