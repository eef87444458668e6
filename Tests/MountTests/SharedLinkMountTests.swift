import BoxTestSupport
import Foundation
import XCTest

/// `mount.boxfs <shared link> MOUNTPOINT`: another user's shared folder, mounted read-only with the mounting
/// account's own token and the `BoxApi` header on every API call (boxsim's request log shows it).
final class SharedLinkMountTests: MountTestCase {
    static let password = "Correct-Horse9"
    var files: [String: Data] = [:]
    var extraMountpoints: [URL] = []

    override func setUp() async throws {
        try await super.setUp()
        var generator = SystemRandomNumberGenerator()
        files = [
            "readme.txt": Data("shared with you\n".utf8),
            "data/numbers.bin": Data((0..<300_000).map { _ in UInt8.random(in: 0...255, using: &generator) }),
            "data/deeper/note.txt": Data("deep note\n".utf8),
        ]
        boxsim = try await BoxSimProcess.start(seed: try SeedTree.make(texts: ["mine.txt": "the admin's own file\n"]))
    }

    override func tearDown() async throws {
        for mountpoint in extraMountpoints {
            if MountFixture.isMounted(mountpoint.path) { _ = try? Shell.run(["fusermount3", "-u", "-z", mountpoint.path]) }
            try? FileManager.default.removeItem(at: mountpoint)
        }
        try await super.tearDown()
    }

    /// A password file in a fresh temp folder, mode 0600 unless `mode` says otherwise.
    func passwordFile(_ password: String, mode: Int = 0o600) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sl-pass-\(UUID().uuidString)")
        try Data((password + "\n").utf8).write(to: url)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: url.path)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url.path
    }

    /// Runs the mount and expects it to fail; returns its stderr.
    func failedMount(_ url: String, options: [String]) throws -> String {
        let mountpoint = FileManager.default.temporaryDirectory.appendingPathComponent("boxfs-sl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: mountpoint, withIntermediateDirectories: true)
        extraMountpoints.append(mountpoint)
        let sim = try XCTUnwrap(boxsim)
        let result = try MountFixture.runMount(source: url, mountpoint: mountpoint.path,
                                               options: ["endpoint=\(sim.baseURL)", "cache=off"] + options,
                                               token: sim.developerToken)
        XCTAssertNotEqual(result.status, 0, "the mount should fail")
        XCTAssertFalse(MountFixture.isMounted(mountpoint.path))
        return result.stderr
    }

    func testAnotherUsersSharedFolderListsReadsAndRefusesWrites() throws {
        let sim = try XCTUnwrap(boxsim)
        let share = try OtherUserShare.make(sim, files: files)
        let before = try lastSequence(sim)
        let mount = try MountFixture.mount(sim, source: share.url)
        self.mount = mount

        XCTAssertEqual(try succeed(["ls", "-A", mount.mountpoint.path]).split(separator: "\n"), ["data", "readme.txt"])
        XCTAssertEqual(try succeed(["ls", "-A", mount.path("data")]).split(separator: "\n"), ["deeper", "numbers.bin"])
        for (path, bytes) in files {
            XCTAssertEqual(FileManager.default.contents(atPath: mount.path(path)), bytes, path)
        }
        let mountLine = try String(contentsOfFile: "/proc/mounts", encoding: .utf8).split(separator: "\n")
            .first { $0.split(separator: " ").dropFirst().first.map(String.init) == mount.mountpoint.path }
        let linkToken = String(share.url.split(separator: "/").last!)
        let daemons = MountFixture.daemonPIDs(for: mount.mountpoint.path)
        XCTAssertEqual(daemons.count, 1)
        for pid in daemons {
            let arguments = try String(decoding: Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline")), as: UTF8.self)
            XCTAssertFalse(arguments.contains(linkToken), "the link's token stays out of ps: \(arguments)")
        }
        let flags = try XCTUnwrap(mountLine?.split(separator: " ").dropFirst(3).first).split(separator: ",")
        XCTAssertTrue(flags.contains("ro"), "the kernel mount is read-only: \(mountLine ?? "")")
        XCTAssertFalse(mountLine?.contains(String(share.url.split(separator: "/").last!)) ?? true,
                       "the link's token stays out of /proc/mounts")

        let attempts = [
            "touch '\(mount.path("new.txt"))'", "echo more >> '\(mount.path("readme.txt"))'",
            "mkdir '\(mount.path("newdir"))'", "rm '\(mount.path("readme.txt"))'", "rmdir '\(mount.path("data/deeper"))'",
            "mv '\(mount.path("readme.txt"))' '\(mount.path("moved.txt"))'", "truncate -s 0 '\(mount.path("readme.txt"))'",
        ]
        for command in attempts {
            let result = try Shell.bash(command)
            XCTAssertNotEqual(result.status, 0, command)
            XCTAssertTrue(result.stderr.contains("Read-only file system"), "\(command): \(result.stderr)")
        }

        let log = try sim.requestLog().filter { $0.seq > before }
        let api = log.filter { $0.path.hasPrefix("/2.0/") }
        XCTAssertTrue(api.contains { $0.path == "/2.0/shared_items" && $0.status == 200 })
        XCTAssertTrue(api.contains { $0.path == "/2.0/folders/\(share.folderID)/items" && $0.status == 200 })
        let numbersID = try XCTUnwrap(share.fileIDs["data/numbers.bin"])
        XCTAssertTrue(api.contains { $0.path == "/2.0/files/\(numbersID)/content" && $0.status == 302 })
        XCTAssertTrue(api.allSatisfy { $0.boxAPI == true && $0.authorization },
                      "every API call carries the header and the account's token: \(api.filter { $0.boxAPI != true })")
        XCTAssertTrue(log.filter { $0.path.hasPrefix("/dl/") }.allSatisfy { $0.boxAPI == false && !$0.authorization },
                      "pre-signed downloads get neither")
        let adminID = try XCTUnwrap(api.first { $0.path == "/2.0/users/me" }?.userID)
        XCTAssertNotEqual(adminID, share.userID)
        XCTAssertTrue(api.allSatisfy { $0.userID == adminID }, "the mounting account's own token is used")
        XCTAssertEqual(try Curl(sim: sim, share: share).ownerSees("readme.txt"), files["readme.txt"])
    }

    func testPasswordProtectedLinkMountsOnlyWithTheRightPasswordFile() throws {
        let sim = try XCTUnwrap(boxsim)
        let share = try OtherUserShare.make(sim, files: files, link: ["access": "open", "password": Self.password])

        let wrong = try failedMount(share.url, options: ["shared_link_password_file=\(try passwordFile("Wrong-pass1"))"])
        XCTAssertEqual(wrong.split(separator: "\n").count, 1, "one line: \(wrong)")
        XCTAssertTrue(wrong.contains("password is wrong"), wrong)
        XCTAssertFalse(wrong.contains("Wrong-pass1"))
        let missing = try failedMount(share.url, options: [])
        XCTAssertTrue(missing.contains("needs a password"), missing)
        let exposed = try failedMount(share.url, options: ["shared_link_password_file=\(try passwordFile(Self.password, mode: 0o644))"])
        XCTAssertTrue(exposed.contains("chmod 600"), exposed)
        XCTAssertFalse(exposed.contains(Self.password))
        XCTAssertTrue(try failedMount(sim.baseURL + "/s/NoSuchLink", options: []).contains("no longer shared"))
        let fileID = try XCTUnwrap(share.fileIDs["readme.txt"])
        let fileLink = try OtherUserShare.call(sim, "PUT", "/2.0/files/\(fileID)?fields=shared_link", token: share.token,
                                               json: ["shared_link": ["access": "open"]])
        let fileURL = try XCTUnwrap((fileLink["shared_link"] as? [String: Any])?["url"] as? String)
        // A link to one file mounts as a read-only folder holding just that file.
        let single = try MountFixture.mount(sim, source: fileURL)
        XCTAssertEqual(try Shell.run(["ls", "-A", single.mountpoint.path]).stdout, "readme.txt\n")
        XCTAssertEqual(FileManager.default.contents(atPath: single.path("readme.txt")), files["readme.txt"])
        XCTAssertTrue(try Shell.bash("echo x > '\(single.path("readme.txt"))'").stderr.contains("Read-only file system"))
        single.unmount()

        let mount = try MountFixture.mount(sim, source: share.url,
                                           options: ["shared_link_password_file=\(try passwordFile(Self.password))"])
        self.mount = mount
        XCTAssertEqual(FileManager.default.contents(atPath: mount.path("data/numbers.bin")), files["data/numbers.bin"])
        let raw = try String(contentsOf: sim.dataDirectory.appendingPathComponent("requests.jsonl"), encoding: .utf8)
        XCTAssertFalse(raw.contains(Self.password), "the password is never logged")
        let daemons = MountFixture.daemonPIDs(for: mount.mountpoint.path)
        XCTAssertFalse(daemons.isEmpty)
        for pid in daemons {
            let argv = String(decoding: FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") ?? Data(), as: UTF8.self)
            XCTAssertFalse(argv.contains(Self.password), "the password is not in the daemon's argv")
        }
    }
}

extension SharedLinkMountTests {
    func testVanityLinksMountAndMalformedLinksFailWithOneLine() throws {
        let sim = try XCTUnwrap(boxsim)
        let share = try OtherUserShare.make(sim, files: files, link: ["access": "open", "vanity_name": "team-share"])
        let mount = try MountFixture.mount(sim, source: sim.baseURL + "/v/team-share/")
        self.mount = mount
        XCTAssertEqual(FileManager.default.contents(atPath: mount.path("readme.txt")), files["readme.txt"])
        XCTAssertEqual(share.sharedLink["vanity_url"] as? String, sim.baseURL + "/v/team-share")

        for bad in ["https://app.box.com/folder/123", "https://app.box.com/s/", "https://app.box.com/s/abc?x=1"] {
            let stderr = try failedMount(bad, options: [])
            XCTAssertEqual(stderr.split(separator: "\n").count, 1, stderr)
            XCTAssertTrue(stderr.contains("is not a Box shared link"), stderr)
        }
        let misplaced = try failedMount("box:", options: ["shared_link_password_file=/nonexistent"])
        XCTAssertTrue(misplaced.contains("only for shared link sources"), misplaced)
    }
}

/// The owner's direct view, to compare the mount's bytes with what the owner stored.
private struct Curl {
    let sim: BoxSimProcess
    let share: OtherUserShare

    func ownerSees(_ path: String) throws -> Data {
        let id = try XCTUnwrap(share.fileIDs[path])
        let result = try Shell.run(["curl", "-s", "-L", "-H", "Authorization: Bearer \(share.token)",
                                    sim.baseURL + "/2.0/files/\(id)/content"])
        return Data(result.stdout.utf8)
    }
}
