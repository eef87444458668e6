import Foundation
import Testing

@testable import BoxAuth

extension FuzzTier {
    /// What gives a token: a delegated command's output (JSON or two lines), and the token store's JSON.
    /// A token either comes out with a usable expiry (describable, comparable) or the output is refused
    /// with `AuthError`; nothing traps.
    @Suite struct TokenAnswerFuzzTests {
        static let now = Date(timeIntervalSince1970: 1_700_000_000)

        static func checkUsable(_ token: TokenInfo, _ context: String) throws(Fuzz.Failure) {
            _ = token.description  // logged when a token is obtained
            _ = token.needsRefresh(now: now, margin: 60)
            _ = token.isExpired(now: now)
            try Fuzz.check(!token.accessToken.isEmpty, "\(context): an empty access token")
        }

        @Test func commandOutputGivesAUsableTokenOrAnAuthError() {
            let seeds = [#"{"access_token": "T0k3n", "expires_in": 3600}"#, "T0k3n\n3600\n", "T0k3n\r\n1e300\r\n",
                         #"{"access_token": "x", "expires_in": 1e300}"#, "x\ninf\n", #"{"access_token": "x", "expires_in": -5}"#]
            Fuzz.run("delegated command output") { random in
                let output = random.chance(0.2) ? random.pick(seeds) : random.mutate(random.pick(seeds), splices: seeds)
                do {
                    let token = try DelegatedCommandSource.parse(Data(output.utf8), obtainedAt: Self.now)
                    try Self.checkUsable(token, output.debugDescription)
                } catch let error as AuthError {
                    try Fuzz.check(String(describing: error).isOneLine, "\(output.debugDescription): \(error)")
                } catch let failure as Fuzz.Failure {
                    throw failure
                } catch {
                    throw Fuzz.Failure(description: "\(output.debugDescription): not an AuthError: \(error)")
                }
            }
        }

        @Test func storedTokensDecodeToUsableTokensOrFail() {
            let seeds = [#"{"access_token": "a", "refresh_token": "r", "expires_at": 1700003600, "obtained_at": 1700000000}"#,
                         #"{"access_token": "a", "expires_at": 1e300}"#, #"{"access_token": "a", "expires_at": -1e300}"#]
            Fuzz.run("token store JSON") { random in
                let text = random.chance(0.2) ? random.pick(seeds) : random.mutate(random.pick(seeds), splices: seeds)
                guard let token = try? JSONDecoder().decode(TokenInfo.self, from: Data(text.utf8)) else { return }
                _ = token.description
                _ = token.needsRefresh(now: Self.now, margin: 60)
            }
        }

        /// Regression: `expires_in` of 1e300 (or a stored expiry as far) trapped when the token was described.
        @Test func anEnormousLifetimeIsCappedAndDescribable() throws {
            let token = try DelegatedCommandSource.parse(Data(#"{"access_token": "x", "expires_in": 1e300}"#.utf8), obtainedAt: Self.now)
            #expect(token.expiresAt == Self.now.addingTimeInterval(TokenInfo.longestLifetime))
            let stored = try JSONDecoder().decode(TokenInfo.self, from: Data(#"{"access_token": "a", "expires_at": 1e300}"#.utf8))
            #expect(stored.description.contains("expires"))
        }
    }
}
