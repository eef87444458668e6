import BoxTestSupport
import Foundation
import XCTest

/// `boxfs search` (docs/SEMANTICS.md "Box commands").
final class BoxCommandSearchTests: BoxCommandTestCase {
    static let tree = [
        "docs/invoice-0042.txt": "payment due in 30 days\n",
        "docs/letters/notes.txt": "the invoice for ACME is attached\n",
        "docs/readme.md": "nothing to see\n",
        "other/invoice.txt": "elsewhere\n",
        "other/invoice/README.txt": "a folder of that name\n",
    ]

    func testSearchFindsByNameAndByAWordInsidePrintingMountPathsScopedWithIn() async throws {
        let mount = try await startAndMount(texts: Self.tree, options: Self.quietOptions)

        let scoped = try boxfsSucceeds(["search", "invoice", "--in", mount.path("docs")])

        XCTAssertEqual(Set(scoped.split(separator: "\n").map(String.init)),
                       [mount.path("docs/invoice-0042.txt"), mount.path("docs/letters/notes.txt")], scoped)
        let everywhere = Set(try boxfsSucceeds(["search", "invoice", "--in", mount.path("")]).split(separator: "\n").map(String.init))
        XCTAssertEqual(everywhere, [mount.path("docs/invoice-0042.txt"), mount.path("docs/letters/notes.txt"),
                                    mount.path("other/invoice.txt"), mount.path("other/invoice")])
        let folders = try boxfsSucceeds(["search", "invoice", "--in", mount.path(""), "--type", "folder"])
        XCTAssertEqual(folders, mount.path("other/invoice") + "\n")
        XCTAssertEqual(try boxfsSucceeds(["search", "nothing", "--in", mount.path(""), "--ext", "md", "--json"])
            .filter { !$0.isWhitespace }, "[\"\(mount.path("docs/readme.md"))\"]")
        // Without --in: the current folder. The paths feed other tools.
        let piped = try Shell.bash("cd \"$D\" && \"$B\" search invoice --ext txt | xargs -d '\\n' grep -l ACME",
                                   environment: ["D": mount.path("docs"), "B": try MountFixture.locateBinary().path])
        XCTAssertEqual(piped.stdout, mount.path("docs/letters/notes.txt") + "\n", piped.stderr)
        XCTAssertEqual(try boxfsSucceeds(["search", "zebra", "--in", mount.path("")]), "", "nothing found is no error")
    }

    func testResultsOutsideTheMountedFolderAreLeftOut() async throws {
        try await startBoxSim(texts: Self.tree)
        let fixture = try MountFixture.mount(try XCTUnwrap(boxsim), source: "box:/docs", options: Self.quietOptions)
        defer { fixture.unmount() }

        let found = try boxfsSucceeds(["search", "invoice", "--in", fixture.mountpoint.path])

        XCTAssertEqual(Set(found.split(separator: "\n").map(String.init)),
                       [fixture.path("invoice-0042.txt"), fixture.path("letters/notes.txt")])
    }

    func testSearchErrorsAndA429AreHandled() async throws {
        let mount = try await startAndMount(texts: Self.tree, options: Self.quietOptions)
        let outside = try makeTemporaryDirectory()

        let notMounted = try boxfsFails(["search", "invoice", "--in", outside.path])
        XCTAssertTrue(notMounted.hasPrefix("boxfs search: \(outside.path) is not in a boxfs mount"), notMounted)
        let badType = try boxfsFails(["search", "invoice", "--in", mount.path(""), "--type", "link"])
        XCTAssertEqual(badType, "boxfs search: --type link: choose file or folder\n")

        try api.rateLimit(pathPrefix: "/2.0/search", retryAfter: 1, count: 1)
        let found = try boxfsSucceeds(["search", "ACME", "--in", mount.path("")])
        XCTAssertEqual(found, mount.path("docs/letters/notes.txt") + "\n")
        XCTAssertEqual(try requests().filter { $0.path == "/2.0/search" }.map(\.status), [429, 200])
    }
}
