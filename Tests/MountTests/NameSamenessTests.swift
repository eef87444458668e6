import BoxTestSupport
import Foundation
import XCTest

/// Two different local names never become one Box item: names that are not UTF-8 are refused (EILSEQ) and
/// never match another file; canonically equivalent names stay two files; names Box counts as one (case)
/// cannot both exist, and a case-only rename works.
final class NameSamenessTests: WriteTestCase {
    /// Python that prints the errno name of `expression` (a call), or "ok".
    static func outcome(_ expression: String) -> String {
        """
        try:
            \(expression)
            print("ok")
        except OSError as error:
            import errno
            print(errno.errorcode[error.errno])
        """
    }

    func testANameThatIsNotUTF8IsEILSEQAndNeverMatchesAnotherFile() async throws {
        // A valid file whose name is what a lenient decoding of b"x\xff.txt" would give.
        let mount = try await startAndMount(texts: ["x\u{FFFD}.txt": "replacement character\n", "ok.txt": "ok\n"])
        let before = try lastSequence(try XCTUnwrap(boxsim))
        let script = [
            Self.outcome("os.close(os.open(b'x\\xff.txt', os.O_CREAT | os.O_WRONLY))"),
            Self.outcome("os.mkdir(b'd\\xfe')"),
            Self.outcome("os.rename(b'ok.txt', b'x\\xfe.txt')"),
            Self.outcome("os.stat(b'x\\xff.txt')"),
            Self.outcome("open(b'x\\xff.txt', 'rb').read()"),
            Self.outcome("os.unlink(b'x\\xff.txt')"),
            // Box has no links, whatever the name.
            Self.outcome("os.symlink('ok.txt', b'l\\xff')"),
            Self.outcome("os.link('ok.txt', b'h\\xff')"),
        ].joined(separator: "\n")
        XCTAssertEqual(try python(script, in: mount), "EILSEQ\nEILSEQ\nEILSEQ\nENOENT\nENOENT\nENOENT\nEPERM\nEPERM\n")
        let log = try requests().after(before)
        XCTAssertTrue(log.writes.isEmpty, "nothing reached Box\n\(log.summary)")
        XCTAssertEqual(try boxNames(in: ""), ["ok.txt", "x\u{FFFD}.txt"])
        XCTAssertEqual(try succeed(["cat", mount.path("x\u{FFFD}.txt")]), "replacement character\n")
    }

    func testCanonicallyEquivalentNamesStayTwoFiles() async throws {
        let mount = try await startAndMount()
        // "café.txt" precomposed (NFC) and decomposed (NFD): the same text to a reader, two names to Box.
        let script = """
            for name, text in (('caf\\u00e9.txt', 'composed'), ('cafe\\u0301.txt', 'decomposed')):
                with open(name.encode(), 'w') as f: f.write(text)
            for name in ('caf\\u00e9.txt', 'cafe\\u0301.txt'):
                print(open(name.encode()).read())
            print(sorted(n.encode().hex() for n in os.listdir('.')))
            """
        XCTAssertEqual(try python(script, in: mount),
                       "composed\ndecomposed\n['63616665cc812e747874', '636166c3a92e747874']\n")
        // Compared as bytes: Swift's `==` would call the two names equal.
        let api = try self.api
        let expected = [Array("caf\u{E9}.txt".utf8): try sha1(of: "composed"),
                        Array("cafe\u{301}.txt".utf8): try sha1(of: "decomposed")]
        try await Poll.until("both files on Box, each with its content", timeout: 60) {
            let items = try api.items(in: "0")
            let found = Dictionary(items.map { (Array($0.name.utf8), $0.sha1 ?? "") }, uniquingKeysWith: { first, _ in first })
            return items.count == 2 && found == expected ? true : nil
        }
    }

    func testAnExclusiveCreateOfANameBoxCountsAsTheSameIsEEXISTAndLookupsAreExact() async throws {
        let mount = try await startAndMount(texts: ["a.txt": "lower\n", "\u{E9}t\u{E9}.txt": "summer\n"])
        let before = try lastSequence(try XCTUnwrap(boxsim))
        let script = [
            Self.outcome("os.close(os.open('A.TXT', os.O_CREAT | os.O_EXCL | os.O_WRONLY))"),
            Self.outcome("os.close(os.open('\\u00c9T\\u00c9.txt', os.O_CREAT | os.O_EXCL | os.O_WRONLY))"),
            // Lookups match the stored name exactly: A.TXT is not a.txt (ls shows a.txt).
            Self.outcome("os.stat('A.TXT')"),
            Self.outcome("open('A.TXT', 'w').write('would replace a.txt')"),
        ].joined(separator: "\n")
        XCTAssertEqual(try python(script, in: mount), "EEXIST\nEEXIST\nENOENT\nEEXIST\n")
        XCTAssertTrue(try requests().after(before).writes.isEmpty)
        XCTAssertEqual(try succeed(["cat", mount.path("a.txt")]), "lower\n")
        XCTAssertEqual(try boxNames(in: ""), ["a.txt", "\u{E9}t\u{E9}.txt"])
    }

    func testACaseOnlyRenameRenamesTheItemOnBox() async throws {
        let mount = try await startAndMount(texts: ["a.txt": "lower\n", "docs/keep.txt": "kept\n"])
        let file = try XCTUnwrap(try api.entry(at: "a.txt"))
        let folder = try XCTUnwrap(try api.entry(at: "docs"))
        try succeed(["mv", mount.path("a.txt"), mount.path("A.txt")])
        try succeed(["mv", mount.path("docs"), mount.path("Docs")])
        XCTAssertEqual(try boxNames(in: ""), ["A.txt", "Docs"])
        XCTAssertEqual(try api.entry(at: "A.txt")?.id, file.id)
        XCTAssertEqual(try api.entry(at: "Docs")?.id, folder.id)
        XCTAssertEqual(try succeed(["ls", mount.mountpoint.path]), "A.txt\nDocs\n")
        XCTAssertEqual(try succeed(["cat", mount.path("A.txt"), mount.path("Docs/keep.txt")]), "lower\nkept\n")

        // A file not on Box yet follows its case-only rename too.
        try write("new\n", to: mount.path("new.txt"))
        try succeed(["mv", mount.path("new.txt"), mount.path("NEW.txt")])
        try await waitForBox("NEW.txt", text: "new\n")
        XCTAssertEqual(try boxNames(in: ""), ["A.txt", "Docs", "NEW.txt"])
    }
}
