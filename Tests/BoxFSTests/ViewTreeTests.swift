import BoxAPI
import Foundation
import Testing

@testable import BoxFS

/// How the trash and search views lay items out by path, and how a file's versions are named.
@Suite struct ViewTreeTests {
    static func file(_ id: String, _ name: String) -> BoxItem { BoxItem(id: id, kind: .file, name: name, size: 1) }
    static func folder(_ id: String, _ name: String) -> BoxItem { BoxItem(id: id, kind: .folder, name: name) }

    @Test func itemsSitAtTheirPathsWithFoldersMadeUpOnTheWay() {
        var tree = ViewTree()
        tree.add(.file(Self.file("1", "report.txt")), named: "report.txt", in: ["docs"])
        tree.add(.file(Self.file("2", "report.txt")), named: "report.txt", in: ["other", "deep"])
        #expect(tree.entries(of: [])?.map(\.name) == ["docs", "other"])
        #expect(tree.entries(of: ["other"])?.map(\.name) == ["deep"])
        #expect(tree.entries(of: ["other", "deep"])?.map(\.name) == ["report.txt"])
        #expect(tree.entries(of: ["missing"]) == nil)
        guard case .file(let item)? = tree.entry(at: ["docs", "report.txt"]) else { Issue.record("no file"); return }
        #expect(item.id == "1")
    }

    @Test func aFolderTakesTheMadeUpFolderItsItemsCreatedAndATakenNameIsNumbered() {
        var tree = ViewTree()
        tree.add(.file(Self.file("1", "a.txt")), named: "a.txt", in: ["old"])
        let path = tree.add(.folder(Self.folder("9", "old")), named: "old", in: [])
        #expect(path == ["old"])
        guard case .folder(let folder?)? = tree.entry(at: ["old"]) else { Issue.record("not the folder"); return }
        #expect(folder.id == "9")
        #expect(tree.entries(of: ["old"])?.map(\.name) == ["a.txt"])
        #expect(tree.add(.file(Self.file("2", "a.txt")), named: "a.txt", in: ["old"]) == ["old", "a (2).txt"])
        #expect(tree.add(.file(Self.file("3", "a.txt")), named: "a.txt", in: ["old"]) == ["old", "a (3).txt"])
        #expect(tree.add(.file(Self.file("4", "old")), named: "old", in: []) == ["old (2)"])
        #expect(ViewTree.numbered(".profile", 2) == ".profile (2)")
    }

    @Test func versionsAreNamedByTimeAndWhoOldestFirst() {
        let alice = BoxUserReference(id: "7", name: "Alice", login: "alice@example.com")
        let at = Date(timeIntervalSince1970: 1_795_000_000)
        let versions = [
            BoxFileVersion(id: "30", size: 3, createdAt: at, modifiedBy: alice, versionNumber: "3"),
            BoxFileVersion(id: "10", size: 1, createdAt: at.addingTimeInterval(-60), modifiedBy: alice, versionNumber: "1"),
            BoxFileVersion(id: "20", size: 2, createdAt: at, modifiedBy: alice, versionNumber: "2"),
            BoxFileVersion(id: "15", size: 2, createdAt: at, trashedAt: at, versionNumber: "2"),
            BoxFileVersion(id: "40", size: 2, createdAt: at.addingTimeInterval(5), modifiedBy: BoxUserReference(id: "8", login: "a/b")),
        ]
        let named = VersionNames.named(versions)
        #expect(named.map(\.version.id) == ["10", "20", "30", "40"], "oldest first, Box's number within a second; trashed left out")
        #expect(named.map(\.name) == [
            "2026-11-18T11.05.40Z alice@example.com", "2026-11-18T11.06.40Z alice@example.com",
            "2026-11-18T11.06.40Z alice@example.com (2)", "2026-11-18T11.06.45Z a_b",
        ])
        #expect(named.map(\.name) == named.map(\.name).sorted(), "names sort by time")
    }
}
