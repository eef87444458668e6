import Foundation

/// Box's rules for item names, checked before any call so a bad name fails at once with the errno
/// a POSIX tool understands, instead of a round trip and a 400.
///
/// Box refuses (its API spec, folders and uploads alike): `/` and `\`, non-printable ASCII, a
/// trailing space, "." and "..", and more than 255 characters. The kernel never passes `/`.
/// Leading spaces are accepted by Box (despite one guide saying otherwise), so they are allowed.
enum BoxName {
    static let maxLength = 255

    static func validate(_ name: String) throws(FSError) {
        if name.utf8.count > maxLength {
            throw FSError(ENAMETOOLONG, "\"\(name.prefix(40))…\": Box names are at most \(maxLength) bytes")
        }
        if name.isEmpty || name == "." || name == ".." {
            throw FSError(EINVAL, "\"\(name)\": not a name Box accepts")
        }
        if name.hasSuffix(" ") {
            throw FSError(EINVAL, "\"\(name)\": Box refuses names ending in a space")
        }
        if name.unicodeScalars.contains(where: { $0 == "/" || $0 == "\\" || $0.value < 0x20 || $0.value == 0x7F }) {
            throw FSError(EINVAL, "\"\(name)\": Box refuses names with a slash, backslash or control character")
        }
    }

    /// Box compares names without regard to case: `A.txt` and `a.txt` cannot live in one folder.
    static func sameOnBox(_ first: String, _ second: String) -> Bool {
        first.compare(second, options: [.caseInsensitive]) == .orderedSame
    }
}
