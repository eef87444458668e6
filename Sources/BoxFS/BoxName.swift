import Foundation

/// Box's rules for item names, checked before any call so a bad name fails at once with the errno
/// a POSIX tool understands, instead of a round trip and a 400.
///
/// Box refuses (its API spec, folders and uploads alike): `/` and `\`, non-printable ASCII, a
/// trailing space, "." and "..", and more than 255 characters. The kernel never passes `/`.
/// Leading spaces are accepted by Box (despite one guide saying otherwise), so they are allowed.
///
/// Sameness: two names are the same name when they are the same Unicode scalars (`same`). Swift's
/// `==` is not that test: it calls canonically equivalent strings equal (`é` precomposed and `e` +
/// combining accent), which Box stores as two items, so a lookup by `==` would open one file under
/// the other's name. Box does ignore case (`sameOnBox`): two names it counts as one cannot share a folder.
public enum BoxName {
    public static let maxLength = 255

    static func validate(_ name: String) throws(FSError) {
        if name.utf8.count > maxLength {
            throw FSError(.nameTooLong, "\"\(name.prefix(40))…\": Box names are at most \(maxLength) bytes")
        }
        if name.isEmpty || name == "." || name == ".." {
            throw FSError(.invalidName, "\"\(name)\": not a name Box accepts")
        }
        if name.hasSuffix(" ") {
            throw FSError(.invalidName, "\"\(name)\": Box refuses names ending in a space")
        }
        if name.unicodeScalars.contains(where: { $0 == "/" || $0 == "\\" || $0.value < 0x20 || $0.value == 0x7F }) {
            throw FSError(.invalidName, "\"\(name)\": Box refuses names with a slash, backslash or control character")
        }
    }

    /// The same name: the same Unicode scalars (hence the same UTF-8 bytes).
    static func same(_ first: String, _ second: String) -> Bool {
        first.utf8.elementsEqual(second.utf8)
    }

    /// A dictionary key that tells names apart exactly as `same` does (a `String` key would not).
    static func key(_ name: String) -> [UInt8] { Array(name.utf8) }

    /// Box compares names without regard to case: `A.txt` and `a.txt` cannot live in one folder. It
    /// does not normalise Unicode: canonically equivalent names that differ in scalars are two names.
    static func sameOnBox(_ first: String, _ second: String) -> Bool {
        first.lowercased().utf8.elementsEqual(second.lowercased().utf8)
    }

    /// A hash equal for names `sameOnBox` counts as the same.
    static func foldedHash(_ name: String) -> Int {
        var hasher = Hasher()
        for byte in name.lowercased().utf8 { hasher.combine(byte) }
        return hasher.finalize()
    }
}

/// A name as the kernel passed it (bytes), checked before it becomes a `String`.
///
/// Box names are Unicode text. Bytes that are not UTF-8 have no exact Box name: decoding them
/// leniently would turn each bad byte into U+FFFD, and `x\xff.txt` and `x\xfe.txt` would become one
/// Box item. So such a name can never exist (a lookup is ENOENT) and cannot be made (EILSEQ).
public struct KernelName: Sendable {
    private let decoded: String?
    private let byteCount: Int

    /// Copies the kernel's NUL-terminated name (valid only during the callback).
    public init(_ bytes: UnsafePointer<CChar>) {
        byteCount = strlen(bytes)
        decoded = String(validatingCString: bytes)
    }

    /// The name of an entry that should exist (lookup, unlink, rmdir, the source of a rename):
    /// ENAMETOOLONG past 255 bytes, ENOENT if not UTF-8 (no such name can exist on Box).
    public func existing() throws(FSError) -> String {
        if byteCount > BoxName.maxLength {
            throw FSError(.nameTooLong, "a name of \(byteCount) bytes: Box names are at most \(BoxName.maxLength) bytes")
        }
        guard let decoded else { throw FSError(.notFound, "a name that is not UTF-8: no such item") }
        return decoded
    }

    /// The name of an entry to be made (create, mkdir, mknod, the target of a rename): EILSEQ if not UTF-8.
    public func new() throws(FSError) -> String {
        guard let decoded else {
            throw FSError(.nameNotUnicode, "a name that is not UTF-8: Box stores names as Unicode text and could not keep it exactly")
        }
        return decoded
    }
}
