import BoxTestSupport
import Foundation
import XCTest

/// README, docs/CONFIGURATION.md, `mount --help` and the man page name the same `-o` options.
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

    /// The option words of the "Options (-o, ...)" block of a help text (up to its blank line).
    func helpOptions(_ help: String) -> Set<String> {
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0.contains("Options (-o, comma-separated") }) else { return [] }
        var names: Set<String> = []
        for line in lines[(start + 1)...] {
            if line.trimmingCharacters(in: .whitespaces).isEmpty { break }
            for word in line.split(separator: " ") { if let name = name(word) { names.insert(name) } }
        }
        return names
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
}
