import Foundation
import Testing

@testable import BoxCLI

extension FuzzTier {
    /// `-o` mount options: generated and mutated option lists either parse to options that re-render to
    /// the same meaning and that the daemon can use as they are, or fail with one line.
    @Suite struct MountOptionsFuzzTests {
        /// Options back to `-o` words (the test's own renderer: the reference for "the same meaning").
        static func render(_ options: MountOptions) -> [String] {
            var words: [String] = []
            if let value = options.endpoint { words.append("endpoint=\(value)") }
            if let value = options.tokenFile { words.append("token_file=\(value)") }
            if options.readOnly { words.append("ro") }
            if options.allowOther { words.append("allow_other") }
            if options.debug { words.append("debug") }
            if let value = options.uid { words.append("uid=\(value)") }
            if let value = options.gid { words.append("gid=\(value)") }
            words.append("entry_timeout=\(options.entryTimeout)")
            words.append("attr_timeout=\(options.attributeTimeout)")
            words.append("dir_cache_ttl=\(options.directoryCacheTTL)")
            words.append("listing_cache_entries=\(options.listingCacheEntries)")
            words.append("node_cache_entries=\(options.nodeCacheEntries)")
            if let value = options.logFile { words.append("log_file=\(value)") }
            if let value = options.profile { words.append("profile=\(value)") }
            if let value = options.asUser { words.append("as_user=\(value)") }
            if let value = options.tokenStore { words.append("token_store=\(value)") }
            if let value = options.downscope { words.append("downscope=\(value.joined(separator: "+"))") }
            if let value = options.sharedLinkPasswordFile { words.append("shared_link_password_file=\(value)") }
            if let value = options.cacheDirectory { words.append("cache_dir=\(value)") }
            words.append("cache_size=\(options.cacheSize)")
            words.append("cache=\(options.cacheEnabled ? "on" : "off")")
            words.append("read_ahead_kb=\(options.readAheadKilobytes)")
            words.append("write_back_delay=\(options.writeBackDelay)")
            words.append("upload_wait=\(options.uploadWait)")
            if options.allowNonEmpty { words.append("nonempty") }
            words += options.kernelFlags
            return words
        }

        static let numbers = ["0", "1", "2.5", "-1", "1e300", "1e9", "nan", "inf", "0x10", "4294967295", "4294967296",
                              "9223372036854775807", "99999999999999999999", "", "١٢", "+5", "1_0"]
        static let words: [(String, [String])] = [
            ("endpoint", ["http://127.0.0.1:8080", "https://api.box.com", "ftp://x", ""]),
            ("token_file", ["/tmp/t", "t=x", ""]), ("log_file", ["/tmp/l"]), ("cache_dir", ["/tmp/c"]),
            ("uid", numbers), ("gid", numbers), ("entry_timeout", numbers), ("attr_timeout", numbers),
            ("dir_cache_ttl", numbers), ("write_back_delay", numbers), ("upload_wait", numbers), ("read_ahead_kb", numbers),
            ("listing_cache_entries", numbers), ("node_cache_entries", numbers),
            ("cache_size", ["4G", "512M", "100k", "1GiB", "1B", "B", "8E", "9223372036854775807", "8796093022208T", "-1M"] + numbers),
            ("cache", ["on", "off", "maybe"]), ("profile", ["work", "a b"]), ("as_user", ["123", "١٢٣", "12a", "½", ""]),
            ("token_store", ["file", "memory", "disk"]), ("downscope", ["root_readonly", "a+b:c", "+", ":"]),
            ("shared_link_password_file", ["/tmp/p"]),
        ]
        static let flags = ["ro", "rw", "allow_other", "debug", "nonempty", "nosuid", "noexec", "defaults", "noauto",
                            "_netdev", "x-systemd.automount", "comment=x", "bogus", "downscope", "uid"]

        static func word(_ random: inout FuzzRandom) -> String {
            if random.chance(0.3) { return random.pick(flags) }
            let (key, values) = random.pick(words)
            return "\(key)=\(random.chance(0.1) ? random.oddString() : random.pick(values))"
        }

        @Test func optionListsParseAndRenderToTheSameMeaningOrFailOnOneLine() {
            Fuzz.run("mount options") { random in
                var groups = (0..<random.int(1...3)).map { _ in
                    (0..<random.int(0...6)).map { _ in Self.word(&random) }.joined(separator: ",")
                }
                if random.chance(0.3) { groups = groups.map { random.mutate($0, splices: Self.flags) } }
                let options: MountOptions
                do {
                    options = try MountOptions(parsing: groups)
                } catch let error as MountOptions.ParseError {
                    try Fuzz.check(error.description.isOneLine && !error.description.isEmpty,
                                   "\(groups): the error is not one line: \(error.description)")
                    return
                }
                let words = Self.render(options)
                let again: MountOptions
                do {
                    again = try MountOptions(parsing: words)
                } catch {
                    throw Fuzz.Failure(description: "\(groups) parsed, but its rendering \(words) does not: \(error)")
                }
                try Fuzz.check(again == options, "\(groups) → \(words) means something else")
                // What the daemon does with the values must not trap (MountDaemon, WriteBackSetup, the uploader).
                for seconds in [options.entryTimeout, options.attributeTimeout, options.directoryCacheTTL,
                                options.writeBackDelay, options.uploadWait] {
                    try Fuzz.check(seconds.isFinite && seconds >= 0 && seconds <= MountOptions.maximumSeconds,
                                   "\(groups): \(seconds) s accepted")
                    _ = Duration.milliseconds(Int(seconds * 1000))
                    _ = Duration.seconds(seconds + 10)
                }
                try Fuzz.check(options.readAheadKilobytes >= 0 && options.cacheSize >= 0 && options.listingCacheEntries >= 0
                               && options.nodeCacheEntries >= 0, "\(groups): negative sizes accepted")
                if let user = options.asUser {
                    try Fuzz.check(!user.isEmpty && user.allSatisfy { $0.isASCII && $0.isNumber }, "as_user=\(user) accepted")
                }
            }
        }

        /// Regressions: each was accepted and trapped later, or reached Box as a non-ASCII header.
        @Test func valuesTheDaemonCannotUseAreRefused() {
            for word in ["dir_cache_ttl=1e20", "upload_wait=1e300", "write_back_delay=1e30", "as_user=١٢٣", "as_user=½",
                         "read_ahead_kb=-1", "listing_cache_entries=-1",
                         "node_cache_entries=-1"] {
                #expect(throws: MountOptions.ParseError.self, "\(word)") { try MountOptions(parsing: [word]) }
            }
        }

        /// Regression: a line break in an unknown option's name split the one-line error.
        @Test func anUnknownOptionWithALineBreakIsNamedOnOneLine() {
            #expect(throws: MountOptions.ParseError.self) { try MountOptions(parsing: ["bo\ngus"]) }
            do { _ = try MountOptions(parsing: ["bo\ngus"]) } catch let error as MountOptions.ParseError { #expect(error.description.isOneLine) }
        }
    }
}
