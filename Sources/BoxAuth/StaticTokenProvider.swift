/// A fixed token, such as a developer token from Box's developer console: never refreshed, so a
/// rejection is final.
///
/// The token never appears in `description`, `debugDescription` or a mirror (`dump`, `print`).
public struct StaticTokenProvider: AccessTokenProvider, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    private let token: String

    public init(token: String) {
        self.token = token
    }

    public func accessToken() async throws -> String {
        token
    }

    public func tokenRejected(_ token: String) async throws -> String? {
        nil
    }

    public var description: String { "StaticTokenProvider(token: <redacted>)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["token": "<redacted>"]) }
}
