import Foundation
import BoxAPI
import WriteBack

/// The one error the filesystem core throws: what went wrong (`kind`) and a message for the log.
///
/// The core says what went wrong; the errno the kernel gets is chosen here, in one place
/// (`Kind.errno`), and so is what every lower-layer error means (`init(_ error:context:)`), so neither
/// the core's operations nor the FUSE adapter ever decide what an HTTP status or a failure means as a number.
public struct FSError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, named for its meaning; `errno` is the one mapping to the kernel's numbers.
    public enum Kind: Sendable, Hashable {
        case notFound
        case exists
        case notEmpty
        case notDirectory
        case isDirectory
        case readOnly
        case badHandle
        /// A name Box refuses (or this side refuses for Box).
        case invalidName
        /// An argument or request that makes no sense (a negative size, a command without what it needs).
        case invalidArgument
        /// A folder moved into itself or below itself.
        case cyclicMove
        case nameTooLong
        /// A name of bytes that are not UTF-8, to be made: Box could not keep it exactly.
        case nameNotUnicode
        case noSpace
        case tooLarge
        case interrupted
        case accessDenied
        case notPermitted
        case tryAgain
        case busy
        case notSupported
        case noAttribute
        /// A reply that does not fit the caller's buffer.
        case bufferTooSmall
        case io
        /// A call on the local disk failed with this errno, passed on as it is.
        case system(Int32)

        /// The errno the kernel gets for each kind: the one place an errno is chosen.
        public var errno: Int32 {
            switch self {
            case .notFound: ENOENT
            case .exists: EEXIST
            case .notEmpty: ENOTEMPTY
            case .notDirectory: ENOTDIR
            case .isDirectory: EISDIR
            case .readOnly: EROFS
            case .badHandle: EBADF
            case .invalidName, .invalidArgument, .cyclicMove: EINVAL
            case .nameTooLong: ENAMETOOLONG
            case .nameNotUnicode: EILSEQ
            case .noSpace: ENOSPC
            case .tooLarge: EFBIG
            case .interrupted: EINTR
            case .accessDenied: EACCES
            case .notPermitted: EPERM
            case .tryAgain: EAGAIN
            case .busy: EBUSY
            case .notSupported: ENOTSUP
            case .noAttribute: ENODATA
            case .bufferTooSmall: ERANGE
            case .io: EIO
            case .system(let code): code
            }
        }
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The errno for the kernel (`Kind.errno`).
    public var errno: Int32 { kind.errno }

    public var description: String { "\(message) (errno \(errno))" }

    public static func notFound(_ what: String) -> FSError { FSError(.notFound, "\(what): no such item") }
    /// ENOENT for a name in a folder, with the folder's Box id (which of several folders a debug log line means).
    static func notFound(_ name: String, in folder: BoxItem) -> FSError {
        FSError(.notFound, "\(name): no such item in folder \(folder.id)")
    }
    public static func readOnly(_ what: String) -> FSError { FSError(.readOnly, "\(what): read-only filesystem") }
    public static func exists(_ what: String) -> FSError { FSError(.exists, "\(what): already exists") }
    public static func notEmpty(_ what: String) -> FSError { FSError(.notEmpty, "\(what): folder not empty") }
    public static let badHandle = FSError(.badHandle, "unknown file handle")
    public static func notDirectory(_ what: String) -> FSError { FSError(.notDirectory, "\(what): not a folder") }
    public static func isDirectory(_ what: String) -> FSError { FSError(.isDirectory, "\(what): is a folder") }

    /// A failed call on the local disk: its errno kept, with `what` was done (and to which file) and the system's words.
    static func system(_ code: Int32, _ what: String) -> FSError {
        FSError(.system(code), "\(what): \(String(cString: strerror(code)))")
    }

    /// Maps any error from the layers below onto a kind.
    public init(_ error: any Error, context: String) {
        if let fsError = error as? FSError {
            self = fsError
        } else if let writeBack = error as? WriteBackError {
            self = FSError(writeBack.diskFull ? .noSpace : .io, "\(context): \(writeBack)")
        } else if error is CancellationError {
            self = FSError(.interrupted, "\(context): interrupted")
        } else if let api = error as? BoxAPIError {
            self = FSError(box: api, context: context)
        } else {
            self = FSError(.io, "\(context): \(error)")
        }
    }

    /// What a Box error means: first by Box's code (with words of its own), else by the HTTP status.
    private init(box api: BoxAPIError, context: String) {
        switch api.code {
        case "folder_not_empty": self = FSError(.notEmpty, "\(context): the folder is not empty")
        case "item_name_invalid": self = FSError(.invalidName, "\(context): Box refuses the name")
        case "item_name_too_long": self = FSError(.nameTooLong, "\(context): the name is too long for Box")
        case "cyclical_folder_structure": self = FSError(.cyclicMove, "\(context): a folder cannot move into itself")
        case "storage_limit_exceeded": self = FSError(.noSpace, "\(context): the Box account is full")
        case "file_size_limit_exceeded": self = FSError(.tooLarge, "\(context): larger than the account may upload")
        default:
            let kind: Kind
            switch api.status {
            case 401, 403: kind = .accessDenied
            case 404: kind = .notFound
            case 409: kind = .exists
            case 412: kind = .tryAgain
            case 413: kind = .tooLarge
            default: kind = .io  // 429 and 5xx after the client's retries, and anything unexpected
            }
            self = FSError(kind, "\(context): \(api)")
        }
    }
}
