import BoxTestSupport
import Foundation
import XCTest

/// README, docs/CONFIGURATION.md, `mount --help` and the manuals (boxfs(1), mount.boxfs(8)) name the same `-o`
/// options; the manuals' descriptions are CONFIGURATION.md's (scripts/manpage-configuration), and `man` reads
/// them without a warning.
final class OptionDocsTests: XCTestCase {
    private var repository: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    private func text(_ relative: String) throws -> String {
        try String(contentsOf: repository.appendingPathComponent(relative), encoding: .utf8)
    }

    /// `token_file=PATH`, `downscope[=SCOPES]`, `cache=on\|off`, `ro` → the option's name.
    private func name(_ word: Substring) -> String? {
        let name = word.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
        return name.isEmpty ? nil : String(name)
    }

    /// Names in backticks.
    private func backticked(_ text: Substring) -> Set<String> {
        Set(text.split(separator: "`", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }.compactMap { name($0.element) })
    }

    /// The first column of the option table in docs/CONFIGURATION.md.
    func configurationOptions() throws -> Set<String> {
        let lines = try text("docs/CONFIGURATION.md").split(separator: "\n")
        guard let header = lines.firstIndex(where: { $0.hasPrefix("| option |") }) else { return [] }
        var names: Set<String> = []
        for line in lines[(header + 2)...] {
            guard line.hasPrefix("|") else { break }
            let cell = line.dropFirst().prefix { $0 != "|" || false }
            names.formUnion(backticked(cell))
        }
        return names
    }

    /// The paragraph under "## Options" in README.md.
    func readmeOptions() throws -> Set<String> {
        let readme = try text("README.md")
        let section = try XCTUnwrap(readme.range(of: "## Options\n"))
        let rest = readme[section.upperBound...]
        let paragraph = rest.prefix { _ in true }.components(separatedBy: "\n\n").first ?? ""
        let listed = paragraph[paragraph.range(of: "CONFIGURATION.md):")!.upperBound...]
        return backticked(Substring(listed))
    }

    /// The option words of the "Options (-o, ...)" block of a help text or manual (up to its blank line or `.Pp`).
    func helpOptions(_ help: String) -> Set<String> {
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0.contains("Options (-o, comma-separated") }) else { return [] }
        var names: Set<String> = []
        for line in lines[(start + 1)...] {
            // A blank line ends the block in help; in a manual, a paragraph break (`.Pp`) or any other request.
            if line.trimmingCharacters(in: .whitespaces).isEmpty || line.hasPrefix(".") { break }
            for word in line.split(separator: " ") { if let name = name(word) { names.insert(name) } }
        }
        return names
    }

    /// The `.It Sy NAME` items of a manual's option list (`.Sh OPTIONS` or `.Sh MOUNT OPTIONS`), each with the
    /// text under it (up to the next item).
    func manualOptionItems(_ manual: String) -> [(names: Set<String>, text: String)] {
        var items: [(names: Set<String>, text: String)] = []
        var inOptions = false
        for line in manual.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix(".Sh ") { inOptions = line == ".Sh OPTIONS" || line == ".Sh MOUNT OPTIONS"; continue }
            guard inOptions else { continue }
            if line.hasPrefix(".It Sy ") {
                let words = line.dropFirst(".It Sy ".count).split(separator: " ").filter { $0 != "," }
                items.append((Set(words.compactMap { name($0) }), ""))
            } else if line == ".El" {
                inOptions = false
            } else if !line.hasPrefix("."), !line.hasPrefix("Default:"), !items.isEmpty {
                items[items.count - 1].text += line + " "
            }
        }
        return items
    }

    func testReadmeConfigurationHelpAndManPageNameTheSameOptions() throws {
        let configuration = try configurationOptions()
        XCTAssertGreaterThan(configuration.count, 25, "the table was found: \(configuration.sorted())")
        let help = try Shell.run([try MountFixture.locateBinary().path, "mount", "--help"])
        XCTAssertEqual(help.status, 0, help.stderr)
        let sources: [(String, Set<String>)] = [
            ("README.md", try readmeOptions()),
            ("boxfs mount --help", helpOptions(help.stdout)),
            ("man/boxfs.1", helpOptions(try text("man/boxfs.1"))),
            ("man/boxfs.1 MOUNT OPTIONS", Set(manualOptionItems(try text("man/boxfs.1")).flatMap(\.names))),
            ("man/mount.boxfs.8 OPTIONS", Set(manualOptionItems(try text("man/mount.boxfs.8")).flatMap(\.names))),
        ]
        for (where_, names) in sources {
            XCTAssertEqual(
                names.subtracting(configuration).sorted(), [], "\(where_) names options docs/CONFIGURATION.md does not")
            XCTAssertEqual(
                configuration.subtracting(names).sorted(), [], "\(where_) leaves out options docs/CONFIGURATION.md has")
        }
    }

    func testTheManPageSaysWhatHelpSays() throws {
        let help = try Shell.run([try MountFixture.locateBinary().path, "mount", "--help"])
        let manual = try text("man/boxfs.1")
        for line in help.stdout.split(separator: "\n") where line.contains("=") && line.hasPrefix("  ") {
            XCTAssertTrue(manual.contains(line.trimmingCharacters(in: .whitespaces)), "man/boxfs.1 lacks: \(line)")
        }
    }

    /// Both manuals are what scripts/manpage makes of docs/CONFIGURATION.md now: a change to the table that
    /// is not carried into the manuals fails here (run scripts/manpage).
    func testTheManualsDescribeEachOptionAsConfigurationDoes() throws {
        let generator = repository.appendingPathComponent("scripts/manpage-configuration").path
        let options = try Shell.run(["python3", generator, "options"])
        XCTAssertEqual(options.status, 0, options.stderr)
        let boxfs = try text("man/boxfs.1")
        XCTAssertTrue(boxfs.contains(options.stdout), "man/boxfs.1's MOUNT OPTIONS are not CONFIGURATION.md's: run scripts/manpage")
        let mount = try text("man/mount.boxfs.8")
        let date = try XCTUnwrap(mount.split(separator: "\n").first { $0.hasPrefix(".Dd ") })
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "MMMM d, yyyy"
        let day = try XCTUnwrap(formatter.date(from: String(date.dropFirst(4))), String(date))
        formatter.dateFormat = "yyyy-MM-dd"
        let page = try Shell.run(["python3", generator, "page", "--date", formatter.string(from: day)])
        XCTAssertEqual(page.status, 0, page.stderr)
        XCTAssertEqual(page.stdout, mount, "man/mount.boxfs.8 is not what CONFIGURATION.md makes: run scripts/manpage")
        for manual in [boxfs, mount] {
            for item in manualOptionItems(manual) {
                XCTAssertGreaterThan(item.text.count, 10, "\(item.names.sorted()) has no description")
            }
        }
    }

    /// `man` prints no warning for any manual the packages install (groff's own checks, as `man --warnings` runs them).
    func testManReadsEveryManualWithoutAWarning() throws {
        for manual in ["man/boxfs.1", "man/mount.boxfs.8", "man/boxsim.1", "man/boxsim-demo.1"] {
            let path = repository.appendingPathComponent(manual).path
            let result = try Shell.run(["groff", "-ww", "-z", "-mandoc", "-Tutf8", path])
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual(result.stderr, "", "groff warns about \(manual)")
        }
    }
}
