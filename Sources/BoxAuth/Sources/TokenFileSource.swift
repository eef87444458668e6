import Foundation
import Synchronization

/// A developer token kept in a file (`-o token_file=PATH`): when Box rejects the token, the file is
/// read again, so a user who drops a new token into it keeps the mount going without a remount.
///
/// A file still holding the rejected token means there is no other token (the request fails as
/// unauthorized, EACCES at the mount, and the next rejection reads the file again). `onNewToken`
/// runs each time a new token is taken from the file, so work parked by the rejection (uploads)
/// can be tried again at once.
public final class TokenFileSource: TokenSource, Sendable {
    private let path: String
    private let read: @Sendable () throws -> String
    private let onNewToken = Mutex<(@Sendable () -> Void)?>(nil)

    /// `read` returns the file's token (checking its permissions); it is called on every rejection.
    public init(path: String, read: @escaping @Sendable () throws -> String) {
        self.path = path
        self.read = read
    }

    /// Called after a new token was read from the file (set once the mount's uploader exists).
    public func whenNewToken(_ action: @escaping @Sendable () -> Void) {
        onNewToken.withLock { $0 = action }
    }

    public func fetchToken(previous: TokenInfo?) async throws -> TokenInfo {
        let token: String
        do { token = try read() } catch {
            throw AuthError(.tokenRejected, "Box rejected the access token, and \(path) cannot be read again: \(error)")
        }
        guard token != previous?.accessToken else {
            throw AuthError(
                .tokenRejected,
                "Box rejected the access token in \(path) (developer tokens expire after 60 minutes and cannot be "
                    + "refreshed): "
                    + "put a new token in that file and the mount goes on, no remount needed")
        }
        onNewToken.withLock { $0 }?()
        return TokenInfo(accessToken: token, expiresAt: nil)
    }
}
