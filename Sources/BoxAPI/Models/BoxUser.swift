/// The account behind the token (or the `As-User` user).
public struct BoxUser: Sendable, Equatable {
    public var id: String
    public var name: String
    public var login: String
    /// Bytes the user may store. Unlimited accounts report a huge number (999999999999999, or
    /// IEEE notation such as 1.0e+15); values beyond Int64 are clamped to `Int64.max`.
    public var spaceAmount: Int64
    public var spaceUsed: Int64
    /// The largest file the user may upload, when Box says.
    public var maxUploadSize: Int64?

    public init(id: String, name: String, login: String, spaceAmount: Int64, spaceUsed: Int64, maxUploadSize: Int64?) {
        self.id = id
        self.name = name
        self.login = login
        self.spaceAmount = spaceAmount
        self.spaceUsed = spaceUsed
        self.maxUploadSize = maxUploadSize
    }
}
