import Foundation

/// Upload sessions, the current user, and boxsim's control API (limits, faults).
extension BoxSimAPI {
    /// `GET /api/2.0/files/upload_sessions/{id}` (total_parts, part_size, num_parts_processed).
    public func uploadSession(_ id: String) throws -> [String: Any] {
        try call("GET", "/api/2.0/files/upload_sessions/\(id)")
    }

    public func currentUser() throws -> [String: Any] {
        try call("GET", "/2.0/users/me?fields=id,space_amount,space_used,max_upload_size")
    }

    /// `PUT /_control/users/{id}` for the token's user: `space_amount`, `max_upload_size`, `status`.
    @discardableResult
    public func updateCurrentUser(_ fields: [String: Any]) throws -> [String: Any] {
        guard let id = try currentUser()["id"] as? String else { throw Failure(description: "no user id") }
        return try call("PUT", "/_control/users/\(id)", json: fields)
    }

    /// Adds a fault rule (docs/BOXSIM.md); answers its id.
    @discardableResult
    public func addFault(_ rule: [String: Any]) throws -> Int {
        (try call("POST", "/_control/faults", json: rule)["id"] as? NSNumber)?.intValue ?? 0
    }

    public func clearFaults() throws {
        try call("DELETE", "/_control/faults")
    }
}
