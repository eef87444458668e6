extension BoxClient {
    /// `GET /2.0/users/me`: the user the token (or `As-User`) acts for, with quota.
    public func currentUser() async throws -> BoxUser {
        try await executeJSON(.get(apiURL("users", "me")), as: UserDTO.self).user
    }
}
