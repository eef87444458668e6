import Foundation
import Testing

@testable import BoxCLI

extension FuzzTier {
    /// Profile files (`profiles/NAME.toml`, the small TOML subset of `ProfileFile`): what `render` writes
    /// parses back to the same values, whatever the values hold; mutated files parse or fail on one line
    /// naming the file and line; a profile built from parsed values is refused on one line or valid.
    @Suite struct ProfileFileFuzzTests {
        static let keys = Profile.keys.map(\.0) + ["auth"]

        static func value(_ random: inout FuzzRandom) -> String {
            switch random.int(0...3) {
            case 0: return random.pick(["oauth", "ccg", "jwt", "delegated", "developer"])
            case 1: return random.pick(["https://api.box.com", "/home/me/key.json", "12345", "memory", "enterprise"])
            default: return random.oddString(maxLength: 20)
            }
        }

        @Test func renderedProfilesParseBackToTheirValues() {
            Fuzz.run("profile file (round trip)") { random in
                var pairs: [(String, String)] = []
                for key in Self.keys.shuffled(using: &random).prefix(random.int(0...Self.keys.count)) {
                    pairs.append((key, Self.value(&random)))
                }
                let header = random.chance(0.5) ? "boxfs profile 'x'" : random.oddString()
                let text = ProfileFile.render(pairs, header: header)
                let parsed: [String: String]
                do {
                    parsed = try ProfileFile.parse(text, name: "p.toml")
                } catch {
                    throw Fuzz.Failure(description: "render(\(pairs)) does not parse: \(error)")
                }
                let want = Dictionary(pairs, uniquingKeysWith: { $1 })
                try Fuzz.check(parsed == want, "render(\(pairs)) parses to \(parsed)")
            }
        }

        @Test func mutatedProfilesParseOrFailOnOneLine() {
            let seeds = [
                "# boxfs profile\nauth = \"oauth\"\nclient_id = \"abc\"\nclient_secret = \"s\\\"e\\\\c\\n\"\n",
                "auth = ccg # comment\nsubject_type = enterprise\nsubject_id = 123\n\n",
                "auth=\"jwt\"\r\njwt_config = \"/home/me/config.json\"\r\n",
            ]
            Fuzz.run("profile file (mutations)", iterations: 5000) { random in
                let text = random.mutate(random.pick(seeds), splices: seeds)
                let values: [String: String]
                do {
                    values = try ProfileFile.parse(text, name: "/home/me/.config/boxfs/profiles/x.toml")
                } catch {
                    let message = String(describing: error)
                    try Fuzz.check(message.isOneLine && message.hasPrefix("/home/me/.config/boxfs/profiles/x.toml line "),
                                   "\(text.debugDescription): \(message.debugDescription)")
                    return
                }
                do {
                    _ = try Profile(name: "x", values: values)
                } catch {
                    let message = String(describing: error)
                    try Fuzz.check(message.isOneLine, "\(values): \(message.debugDescription)")
                }
            }
        }

        /// Regressions: CRLF line ends (a file written on Windows) made the whole file one line, and a key
        /// given twice silently took the second value.
        @Test func crlfLineEndsParseAndDuplicateKeysAreRefused() throws {
            let values = try ProfileFile.parse("auth = \"oauth\"\r\nclient_id = \"abc\"\r\n", name: "p")
            #expect(values == ["auth": "oauth", "client_id": "abc"])
            #expect(throws: ProfileFile.ParseError.self) {
                try ProfileFile.parse("auth = \"oauth\"\nauth = \"ccg\"\n", name: "p")
            }
        }
    }
}
