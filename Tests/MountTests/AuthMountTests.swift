import BoxTestSupport
import Foundation
import XCTest

/// Every way to authenticate, end to end: a real boxsim, the real `boxfs` binary, real mounts.
/// Profiles live in a temp folder named by `BOXFS_CONFIG_DIR`.
final class AuthMountTests: XCTestCase {
    var sim: BoxSimProcess!
    var configDirectory: URL!
    var mountpoints: [URL] = []

    override func setUp() async throws {
        var texts = ["a.txt": "alpha\n"]
        for index in 0..<64 { texts["many/f\(index).txt"] = "file \(index)\n" }
        for index in 0..<8 { texts["a\(index).txt"] = "a\(index)\n"; texts["b\(index).txt"] = "b\(index)\n" }
        sim = try await BoxSimProcess.start(seed: try SeedTree.make(texts: texts), extraArgs: ["--auto-approve"])
        configDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("boxfs-config-\(UUID().uuidString)")
    }

    override func tearDown() async throws {
        for mountpoint in mountpoints {
            if MountFixture.isMounted(mountpoint.path) { _ = try? Shell.run(["fusermount3", "-u", "-z", mountpoint.path]) }
            let deadline = Date().addingTimeInterval(10)
            while !MountFixture.daemonPIDs(for: mountpoint.path).isEmpty, Date() < deadline { usleep(20_000) }
            try? FileManager.default.removeItem(at: mountpoint)
        }
        sim.stop()
        try? FileManager.default.removeItem(at: configDirectory)
    }

    /// Profiles, tokens and the block cache all live in the test's temp folder, never in the real home.
    var environment: [String: String] {
        ["BOXFS_CONFIG_DIR": configDirectory.path, "XDG_CACHE_HOME": configDirectory.path + "/cache", "BOX_DEVELOPER_TOKEN": ""]
    }

    func boxfs(_ arguments: [String], extra: [String: String] = [:]) throws -> CommandResult {
        try Shell.run([try MountFixture.locateBinary().path] + arguments,
                      environment: environment.merging(extra) { $1 }, timeout: 60)
    }

    /// `mount.boxfs SOURCE NEW-TEMP-FOLDER -o options` with no token in the environment.
    func mount(_ source: String = "box:", options: [String] = []) throws -> (URL, CommandResult) {
        let mountpoint = FileManager.default.temporaryDirectory.appendingPathComponent("boxfs-auth-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: mountpoint, withIntermediateDirectories: true)
        mountpoints.append(mountpoint)
        let result = try MountFixture.runMount(source: source, mountpoint: mountpoint.path, options: options, token: nil,
                                               extraEnvironment: environment)
        return (mountpoint, result)
    }

    func mounted(_ source: String = "box:", options: [String] = [], file: StaticString = #filePath, line: UInt = #line) throws -> URL {
        let (mountpoint, result) = try mount(source, options: options)
        XCTAssertEqual(result.status, 0, "mount failed: \(result.stderr)", file: file, line: line)
        return mountpoint
    }

    func read(_ mountpoint: URL, _ path: String) throws -> CommandResult {
        try Shell.run(["cat", mountpoint.appendingPathComponent(path).path], timeout: 30)
    }

    func secretFile(_ secret: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("secret-\(UUID().uuidString)").path
        try Data(secret.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    func tokenCalls(after sequence: Int = 0) throws -> [LoggedRequest] {
        try sim.requestLog().filter { $0.seq > sequence && $0.path == "/oauth2/token" }
    }

    /// The access token a profile's file store holds now.
    func storedAccessToken(_ profile: String) throws -> String {
        let data = try Data(contentsOf: configDirectory.appendingPathComponent("tokens/\(profile).json"))
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return try XCTUnwrap(object?["access_token"] as? String)
    }

    func expire(_ token: String) throws {
        let result = try Shell.bash("curl -sS -o /dev/null -w '%{http_code}' -X POST '\(sim.baseURL)/_control/tokens/expire' "
                                    + "-H 'Content-Type: application/json' --data-binary @- <<< '{\"token\":\"\(token)\"}'")
        XCTAssertEqual(result.stdout, "204", "expire: \(result.stderr)")
    }

    func control(_ method: String, _ path: String, _ body: String) throws -> [String: Any] {
        let result = try Shell.bash("curl -sS -X \(method) '\(sim.baseURL)/_control/\(path)' "
                                    + "-H 'Content-Type: application/json' --data-binary @- <<< '\(body)'")
        return (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [String: Any] ?? [:]
    }

    /// An app in boxsim: (client id, secret file, enterprise id).
    func createApp(redirectPort: Int? = nil, publicKey: String? = nil) throws -> (String, String, String) {
        var body: [String: Any] = ["name": "boxfs"]
        if let redirectPort { body["redirect_uri"] = "http://127.0.0.1:\(redirectPort)/callback" }
        if let publicKey { body["public_keys"] = [["id": "key-1", "pem": publicKey]] }
        let text = String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
        let app = try control("POST", "apps", text)
        let id = try XCTUnwrap(app["client_id"] as? String, "boxsim created no app: \(app)")
        return (id, try secretFile(try XCTUnwrap(app["client_secret"] as? String)), try XCTUnwrap(app["enterprise_id"] as? String))
    }

    /// `boxfs login` with a "browser" (curl) that follows boxsim's auto-approving authorize page.
    /// The app registers no redirect URI, so the loopback port can be any free one.
    func login(profile: String = "default") throws -> CommandResult {
        let (clientID, secretFile, _) = try createApp()
        return try boxfs(["login", "--profile", profile, "--endpoint", sim.baseURL, "--client-id", clientID,
                          "--client-secret-file", secretFile, "--port", "0", "--timeout", "30"],
                         extra: ["BROWSER": "curl -sS -L -o /dev/null"])
    }
}

extension AuthMountTests {
    func testLoginThenMountNeedsNoOtherFlag() throws {
        let result = try login()
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("/api/oauth2/authorize?response_type=code"), result.stdout)
        XCTAssertTrue(result.stdout.contains("Signed in to Box as"), result.stdout)
        let mountpoint = try mounted()
        XCTAssertEqual(try read(mountpoint, "a.txt").stdout, "alpha\n")
        let profileMode = try FileManager.default.attributesOfItem(
            atPath: configDirectory.appendingPathComponent("profiles/default.toml").path)[.posixPermissions] as? NSNumber
        XCTAssertEqual(profileMode?.intValue, 0o600)
    }

    func testClientCredentialsProfileMountsWithProfileOption() throws {
        let (clientID, secretFile, enterprise) = try createApp()
        let user = try control("POST", "users", #"{"name":"Casey","kind":"user"}"#)
        let userID = try XCTUnwrap(user["id"] as? String)
        let add = try boxfs(["profile", "add", "svc", "--auth", "ccg", "--endpoint", sim.baseURL, "--client-id", clientID,
                             "--client-secret-file", secretFile, "--enterprise-id", enterprise])
        XCTAssertEqual(add.status, 0, add.stderr)
        let addUser = try boxfs(["profile", "add", "casey", "--auth", "ccg", "--endpoint", sim.baseURL, "--client-id",
                                 clientID, "--client-secret-file", secretFile, "--user-id", userID])
        XCTAssertEqual(addUser.status, 0, addUser.stderr)
        XCTAssertTrue(addUser.stdout.contains("Casey"), addUser.stdout)
        let show = try boxfs(["profile", "show", "svc"])
        XCTAssertFalse(show.stdout.contains(try String(contentsOfFile: secretFile, encoding: .utf8)), "show redacts the secret")
        // The service account's root is empty; the mount works and lists it.
        let mountpoint = try mounted(options: ["profile=svc"])
        XCTAssertEqual(try Shell.run(["ls", "-A", mountpoint.path]).stdout, "")
        XCTAssertEqual(try tokenCalls().filter { $0.status == 200 }.count, 2, "one CCG token per profile, reused by the mount")
    }

    func testJWTProfileFromConsoleConfigMounts() throws {
        let work = configDirectory.appendingPathComponent("keys")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let plain = work.appendingPathComponent("plain.pem").path, encrypted = work.appendingPathComponent("enc.pem").path
        try XCTSkipUnless(try Shell.run(["openssl", "genpkey", "-algorithm", "RSA", "-out", plain]).succeeded, "needs openssl")
        XCTAssertTrue(try Shell.run(["openssl", "pkcs8", "-topk8", "-in", plain, "-out", encrypted, "-passout", "pass:pw",
                                     "-v2", "aes-256-cbc"]).succeeded)
        let (clientID, secretFile, enterprise) = try createApp(
            publicKey: try Shell.run(["openssl", "pkey", "-in", plain, "-pubout"]).stdout)
        let config: [String: Any] = [
            "boxAppSettings": ["clientID": clientID, "clientSecret": try String(contentsOfFile: secretFile, encoding: .utf8),
                               "appAuth": ["publicKeyID": "key-1", "privateKey": try String(contentsOfFile: encrypted, encoding: .utf8),
                                           "passphrase": "pw"]],
            "enterpriseID": enterprise,
        ]
        let configPath = work.appendingPathComponent("config.json")
        try JSONSerialization.data(withJSONObject: config).write(to: configPath)
        let add = try boxfs(["profile", "add", "jwt", "--auth", "jwt", "--endpoint", sim.baseURL, "--jwt-config", configPath.path])
        XCTAssertEqual(add.status, 0, add.stderr)
        _ = try mounted(options: ["profile=jwt", "token_store=memory"])
        XCTAssertGreaterThanOrEqual(try tokenCalls().filter { $0.status == 200 }.count, 2, "profile check + memory-store mount")
    }

    func testDelegatedCommandProfileMounts() throws {
        let issued = try control("POST", "tokens", #"{"user_id":"20000001","expires_in":3600}"#)
        let token = try XCTUnwrap(issued["access_token"] as? String)
        let script = configDirectory.appendingPathComponent("token-command.sh")
        try FileManager.default.createDirectory(at: configDirectory, withIntermediateDirectories: true)
        let marker = configDirectory.appendingPathComponent("asked-for").path
        try Data("#!/bin/sh\necho \"$1\" >> '\(marker)'\nprintf '%s\\n%s\\n' '\(token)' 3600\n".utf8).write(to: script)
        chmod(script.path, 0o700)
        let add = try boxfs(["profile", "add", "app", "--auth", "delegated", "--endpoint", sim.baseURL,
                             "--command", script.path, "--unique-id", "user-42"])
        XCTAssertEqual(add.status, 0, add.stderr)
        let mountpoint = try mounted(options: ["profile=app"])
        XCTAssertEqual(try read(mountpoint, "a.txt").stdout, "alpha\n")
        XCTAssertTrue(try String(contentsOfFile: marker, encoding: .utf8).contains("user-42"), "the command got the unique id")
    }

    func test64ConcurrentReadsWithAnExpiredTokenMakeOneTokenRequest() throws {
        XCTAssertEqual(try login().status, 0)
        let mountpoint = try mounted()
        XCTAssertEqual(try read(mountpoint, "a.txt").stdout, "alpha\n")
        let before = try sim.requestLog().last?.seq ?? 0
        try expire(try storedAccessToken("default"))
        let script = (0..<64).map { "cat '\(mountpoint.path)/many/f\($0).txt' > /dev/null &" }.joined(separator: "\n")
        let result = try Shell.bash(script + "\nfail=0; for job in $(jobs -p); do wait $job || fail=1; done; exit $fail")
        XCTAssertEqual(result.status, 0, result.stderr)
        let calls = try tokenCalls(after: before)
        XCTAssertEqual(calls.count, 1, "exactly one refresh for 64 readers: \(calls)")
        XCTAssertEqual(calls.first?.status, 200)
        XCTAssertGreaterThan(try sim.requestLog().filter { $0.seq > before && $0.status == 401 }.count, 0,
                             "the reads did meet the expired token")
    }

    func testTwoMountsSharingOneStoreSurviveSeveralRefreshes() throws {
        XCTAssertEqual(try login().status, 0)
        let first = try mounted(), second = try mounted()
        let before = try sim.requestLog().last?.seq ?? 0
        for round in 0..<4 {
            try expire(try storedAccessToken("default"))
            XCTAssertEqual(try read(first, "a\(round).txt").stdout, "a\(round)\n", "round \(round), first mount")
            XCTAssertEqual(try read(second, "b\(round).txt").stdout, "b\(round)\n", "round \(round), second mount")
        }
        let calls = try tokenCalls(after: before)
        XCTAssertEqual(calls.map(\.status), [200, 200, 200, 200], "one refresh per expiry, none refused (no burned token)")
    }

    func testRevokedTokenFailsCleanly() throws {
        XCTAssertEqual(try login().status, 0)
        let mountpoint = try mounted()
        let logout = try boxfs(["logout"])
        XCTAssertEqual(logout.status, 0, logout.stderr)
        XCTAssertEqual(try sim.requestLog().filter { $0.path == "/oauth2/revoke" }.map(\.status), [200, 200])
        let started = Date()
        let refused = try read(mountpoint, "a1.txt")
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.stderr.contains("Permission denied"), refused.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(started), 10, "fails at once, no retry loop")
        let (_, again) = try mount()
        XCTAssertEqual(again.status, 1)
        XCTAssertTrue(again.stderr.contains("boxfs login"), again.stderr)
        XCTAssertEqual(again.stderr.split(separator: "\n").count, 1, again.stderr)
    }

    func testAsUserReadsTheOtherUsersFilesAndIsRefusedForANonAdmin() throws {
        let user = try control("POST", "users", #"{"name":"Other","kind":"user"}"#)
        let userID = try XCTUnwrap(user["id"] as? String)
        // The admin creates a folder as that user (As-User over the API).
        let created = try Shell.bash("curl -sS -o /dev/null -w '%{http_code}' -X POST '\(sim.baseURL)/2.0/folders' "
            + "-H 'As-User: \(userID)' -H @- --data-binary '{\"name\":\"theirs\",\"parent\":{\"id\":\"0\"}}' "
            + "<<< 'Authorization: Bearer \(sim.developerToken)'")
        XCTAssertEqual(created.stdout, "201", created.stderr)
        let tokenFile = configDirectory.appendingPathComponent("dev-token")
        try FileManager.default.createDirectory(at: configDirectory, withIntermediateDirectories: true)
        try Data(sim.developerToken.utf8).write(to: tokenFile)
        let mountpoint = try mounted(options: ["endpoint=\(sim.baseURL)", "token_file=\(tokenFile.path)", "as_user=\(userID)"])
        XCTAssertEqual(try Shell.run(["ls", mountpoint.path]).stdout, "theirs\n")
        XCTAssertTrue(try sim.requestLog().contains { $0.asUser == userID && $0.path == "/2.0/users/me" })

        // A regular user's token cannot act as anyone.
        let issued = try control("POST", "tokens", #"{"user_id":"\#(userID)"}"#)
        try Data(try XCTUnwrap(issued["access_token"] as? String).utf8).write(to: tokenFile)
        let (_, refused) = try mount(options: ["endpoint=\(sim.baseURL)", "token_file=\(tokenFile.path)", "as_user=20000001"])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("Box refused to act as user 20000001"), refused.stderr)

        // Impersonation refused after the mount (the user was deactivated): EACCES.
        _ = try control("PUT", "users/\(userID)", #"{"status":"inactive"}"#)
        let denied = try Shell.run(["ls", mountpoint.appendingPathComponent("theirs").path])
        XCTAssertTrue(denied.stderr.contains("Permission denied"), denied.stderr)
    }

    func testDownscopedMountReadsButCannotWrite() throws {
        let tokenFile = configDirectory.appendingPathComponent("dev-token")
        try FileManager.default.createDirectory(at: configDirectory, withIntermediateDirectories: true)
        try Data(sim.developerToken.utf8).write(to: tokenFile)
        let mountpoint = try mounted(options: ["endpoint=\(sim.baseURL)", "token_file=\(tokenFile.path)", "downscope"])
        XCTAssertEqual(try read(mountpoint, "a.txt").stdout, "alpha\n")
        let write = try Shell.bash("echo x > '\(mountpoint.path)/new.txt'")
        XCTAssertTrue(write.stderr.contains("Read-only file system"), write.stderr)
        XCTAssertEqual(try tokenCalls().map(\.status), [200], "one token exchange")
    }

    func testSecretsStayOutOfArgumentsAndMessages() throws {
        XCTAssertEqual(try login().status, 0)
        let log = configDirectory.appendingPathComponent("mount.log").path
        let mountpoint = try mounted(options: ["debug", "log_file=\(log)"])
        XCTAssertEqual(try read(mountpoint, "a.txt").stdout, "alpha\n")
        let first = try storedAccessToken("default")
        try expire(first)
        XCTAssertEqual(try read(mountpoint, "a1.txt").stdout, "a1\n")
        let token = try storedAccessToken("default")
        XCTAssertNotEqual(token, first, "a refresh happened while debug logging")
        let logText = try String(contentsOfFile: log, encoding: .utf8)
        XCTAssertTrue(logText.contains("refresh"), "the debug log mentions the refresh")
        let stored = try Data(contentsOf: configDirectory.appendingPathComponent("tokens/default.json"))
        let refresh = try XCTUnwrap((try JSONSerialization.jsonObject(with: stored) as? [String: Any])?["refresh_token"] as? String)
        for secret in [first, token, refresh] { XCTAssertFalse(logText.contains(secret), "a token reached the log") }
        for pid in MountFixture.daemonPIDs(for: mountpoint.path) {
            let cmdline = try String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)
            XCTAssertFalse(cmdline.contains(token))
        }
        let profile = try String(contentsOf: configDirectory.appendingPathComponent("profiles/default.toml"), encoding: .utf8)
        XCTAssertFalse(profile.contains(token), "tokens live in the token store, not the profile")
    }
}
