import Foundation
import BoxAPI
import WriteBack

/// The one error the filesystem core throws: an errno for the kernel and a message for the log.
///
/// Every lower-layer error becomes an `FSError` here, in one place (`init(_ error: any Error)`),
/// so the FUSE adapter never has to decide what an HTTP status means.
public struct FSError: Error, Sendable, CustomStringConvertible {
    public let errno: Int32
    public let message: String

    public init(_ errno: Int32, _ message: String) {
        self.errno = errno
        self.message = message
    }

    public var description: String { "\(message) (errno \(errno))" }

    public static func notFound(_ what: String) -> FSError { FSError(ENOENT, "\(what): no such item") }
    /// ENOENT for a name in a folder, with the folder's Box id (which of several folders a debug log line means).
    static func notFound(_ name: String, in folder: BoxItem) -> FSError {
        FSError(ENOENT, "\(name): no such item in folder \(folder.id)")
    }
    public static func readOnly(_ what: String) -> FSError { FSError(EROFS, "\(what): read-only filesystem") }
    public static func exists(_ what: String) -> FSError { FSError(EEXIST, "\(what): already exists") }
    public static func notEmpty(_ what: String) -> FSError { FSError(ENOTEMPTY, "\(what): folder not empty") }
    public static let badHandle = FSError(EBADF, "unknown file handle")
    public static func notDirectory(_ what: String) -> FSError { FSError(ENOTDIR, "\(what): not a folder") }
    public static func isDirectory(_ what: String) -> FSError { FSError(EISDIR, "\(what): is a folder") }

    /// Maps any error from the layers below onto an errno.
    public init(_ error: any Error, context: String) {
        if let fsError = error as? FSError {
            self = fsError
            return
        }
        if let writeBack = error as? WriteBackError {
            self = FSError(writeBack.diskFull ? ENOSPC : EIO, "\(context): \(writeBack)")
            return
        }
        if error is CancellationError {
            self = FSError(EINTR, "\(context): interrupted")
            return
        }
        guard let api = error as? BoxAPIError else {
            self = FSError(EIO, "\(context): \(error)")
            return
        }
        let errno: Int32
        switch api.code {
        case "folder_not_empty": self = FSError(ENOTEMPTY, "\(context): the folder is not empty"); return
        case "item_name_invalid": self = FSError(EINVAL, "\(context): Box refuses the name"); return
        case "item_name_too_long": self = FSError(ENAMETOOLONG, "\(context): the name is too long for Box"); return
        case "cyclical_folder_structure":
            self = FSError(EINVAL, "\(context): a folder cannot move into itself"); return
        case "storage_limit_exceeded": self = FSError(ENOSPC, "\(context): the Box account is full"); return
        case "file_size_limit_exceeded": self = FSError(EFBIG, "\(context): larger than the account may upload"); return
        default: break
        }
        switch api.status {
        case 401: errno = EACCES
        case 403: errno = api.code == "storage_limit_exceeded" ? ENOSPC : EACCES
        case 404: errno = ENOENT
        case 409: errno = EEXIST
        case 412: errno = EAGAIN
        case 413: errno = EFBIG
        case 429, 500...599: errno = EIO
        default: errno = EIO
        }
        self = FSError(errno, "\(context): \(api)")
    }
}
