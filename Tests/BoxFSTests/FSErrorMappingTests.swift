import BoxAPI
import Foundation
import Testing
import WriteBack

@testable import BoxFS

/// The one mapping from what went wrong to the kernel's errno, pinned entry by entry: a changed entry
/// (or a Box error read differently) fails here, never silently in a tool's "Input/output error".
@Suite struct FSErrorMappingTests {
    /// Every kind and the errno it must give. A kind added to `FSError.Kind` without a line here fails to
    /// compile (`pinned`'s switch is exhaustive).
    static let kinds: [FSError.Kind] = [
        .notFound, .exists, .notEmpty, .notDirectory, .isDirectory, .readOnly, .badHandle, .invalidName,
        .invalidArgument, .cyclicMove, .nameTooLong, .nameNotUnicode, .noSpace, .tooLarge, .interrupted,
        .accessDenied, .notPermitted, .tryAgain, .busy, .notSupported, .noAttribute, .bufferTooSmall, .io,
        .system(ENOSPC), .system(EDQUOT), .system(EMFILE),
    ]

    static func pinned(_ kind: FSError.Kind) -> Int32 {
        switch kind {
        case .notFound: 2  // ENOENT
        case .exists: 17  // EEXIST
        case .notEmpty: 39  // ENOTEMPTY
        case .notDirectory: 20  // ENOTDIR
        case .isDirectory: 21  // EISDIR
        case .readOnly: 30  // EROFS
        case .badHandle: 9  // EBADF
        case .invalidName, .invalidArgument, .cyclicMove: 22  // EINVAL
        case .nameTooLong: 36  // ENAMETOOLONG
        case .nameNotUnicode: 84  // EILSEQ
        case .noSpace: 28  // ENOSPC
        case .tooLarge: 27  // EFBIG
        case .interrupted: 4  // EINTR
        case .accessDenied: 13  // EACCES
        case .notPermitted: 1  // EPERM
        case .tryAgain: 11  // EAGAIN
        case .busy: 16  // EBUSY
        case .notSupported: 95  // ENOTSUP (EOPNOTSUPP on Linux)
        case .noAttribute: 61  // ENODATA
        case .bufferTooSmall: 34  // ERANGE
        case .io: 5  // EIO
        case .system(let code): code  // a local disk call's errno, passed on unchanged
        }
    }

    @Test(arguments: kinds) func eachKindHasItsErrno(_ kind: FSError.Kind) {
        #expect(kind.errno == Self.pinned(kind), "\(kind)")
        #expect(FSError(kind, "m").errno == Self.pinned(kind))
    }

    /// Box's error codes, each with its own words, whatever the status.
    @Test(arguments: [
        ("folder_not_empty", 400, FSError.Kind.notEmpty, "the folder is not empty"),
        ("item_name_invalid", 400, .invalidName, "Box refuses the name"),
        ("item_name_too_long", 400, .nameTooLong, "the name is too long for Box"),
        ("cyclical_folder_structure", 400, .cyclicMove, "a folder cannot move into itself"),
        ("storage_limit_exceeded", 403, .noSpace, "the Box account is full"),
        ("storage_limit_exceeded", 507, .noSpace, "the Box account is full"),
        ("file_size_limit_exceeded", 403, .tooLarge, "larger than the account may upload"),
    ])
    func boxCodesMapByCode(_ code: String, _ status: Int, _ kind: FSError.Kind, _ words: String) {
        let error = FSError(BoxAPIError(kind: .badRequest, status: status, code: code), context: "op")
        #expect(error.kind == kind)
        #expect(error.errno == Self.pinned(kind))
        #expect(error.message == "op: \(words)")
    }

    /// Any other answer by its HTTP status (0: no answer at all), with Box's error in the message.
    @Test(arguments: [
        (401, FSError.Kind.accessDenied), (403, .accessDenied), (404, .notFound), (409, .exists), (412, .tryAgain),
        (413, .tooLarge), (429, .io), (500, .io), (503, .io), (400, .io), (0, .io),
    ])
    func boxStatusesMapByStatus(_ status: Int, _ kind: FSError.Kind) {
        let api = BoxAPIError(kind: .unexpectedStatus, status: status, code: "some_code")
        let error = FSError(api, context: "op")
        #expect(error.kind == kind)
        #expect(error.errno == Self.pinned(kind))
        #expect(error.message == "op: \(api)")
    }

    @Test func otherErrorsMapByWhatTheyAre() {
        #expect(FSError(WriteBackError("x", diskFull: true), context: "op").errno == 28)
        #expect(FSError(WriteBackError("x"), context: "op").errno == 5)
        #expect(FSError(WriteBackError("x"), context: "op").message == "op: write-back: x")
        #expect(FSError(CancellationError(), context: "op").errno == 4)
        #expect(FSError(CancellationError(), context: "op").message == "op: interrupted")
        struct Other: Error {}
        #expect(FSError(Other(), context: "op").errno == 5)
        let thrown = FSError.exists("a")
        #expect(FSError(thrown, context: "op").message == thrown.message)
        #expect(FSError(thrown, context: "op").kind == .exists)
    }

    /// The named constructors keep their words, and a local disk failure keeps its errno and names what failed.
    @Test func constructorsKeepTheirMessages() {
        #expect(FSError.notFound("a").message == "a: no such item")
        #expect(FSError.readOnly("a").message == "a: read-only filesystem")
        #expect(FSError.exists("a").message == "a: already exists")
        #expect(FSError.notEmpty("a").message == "a: folder not empty")
        #expect(FSError.badHandle.message == "unknown file handle")
        #expect(FSError.notDirectory("a").message == "a: not a folder")
        #expect(FSError.isDirectory("a").message == "a: is a folder")
        let disk = FSError.system(ENOSPC, "write of the local copy /x")
        #expect(disk.errno == 28)
        #expect(disk.message == "write of the local copy /x: No space left on device")
        #expect(AttributeNamespace("user.box.id").refusal.errno == 1)
        #expect(AttributeNamespace("user.mine").refusal.errno == 95)
        #expect(AttributeNamespace("security.selinux").refusal.errno == 95)
    }
}
