import Foundation
import Hummingbird

/// Maps store write failures and preconditions to Box's answers.
enum WriteErrors {
    /// 409 `item_name_in_use`; `conflicts` is an array for folders (as folder create answers), one object for files
    /// (as uploads and the preflight answer).
    static func map(_ failure: WriteFailure, renderer: ItemRenderer, conflictsAsArray: Bool) -> BoxError {
        switch failure {
        case .nameInUse(let existing):
            let mini = renderer.mini(existing)
            return BoxError(status: .conflict, code: "item_name_in_use",
                            message: "Item with the same name already exists",
                            contextInfo: .object([("conflicts", conflictsAsArray ? .array([mini]) : mini)]))
        case .folderNotEmpty:
            return BoxError(status: .badRequest, code: "folder_not_empty", message: "Cannot delete – folder not empty")
        case .cyclicalMove:
            return BoxError(status: .badRequest, code: "cyclical_folder_structure",
                            message: "Folder cannot be moved into one of its own subfolders")
        case .parentNotFound:
            return .notFound()
        case .storageLimitExceeded:
            return BoxError(status: .forbidden, code: "storage_limit_exceeded", message: "Account storage limit reached")
        case .fileSizeLimitExceeded:
            return fileSizeLimitExceeded()
        case .preconditionFailed:
            return preconditionFailed()
        }
    }

    /// `If-Match`: 412 `precondition_failed` when the item's etag differs.
    static func checkIfMatch(_ request: Request, item: ItemRecord) throws {
        if !ifMatchHolds(request.headers[.ifMatch], etag: item.etag) { throw preconditionFailed() }
    }

    /// Whether an `If-Match` header (nil: none sent) accepts `etag`.
    static func ifMatchHolds(_ header: String?, etag: Int64) -> Bool {
        guard let header else { return true }
        let tags = header.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces)
            .trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
        return tags.contains("*") || tags.contains(String(etag))
    }

    static func fileSizeLimitExceeded() -> BoxError {
        BoxError(status: .forbidden, code: "file_size_limit_exceeded",
                 message: "File size exceeds the folder owner's file size limit")
    }

    static func preconditionFailed() -> BoxError {
        BoxError(status: .preconditionFailed, code: "precondition_failed",
                 message: "The resource has been modified. Retrieve the resource again and retry")
    }
}
