import Foundation

/// Where a dirty local file goes on Box.
public enum UploadTarget: Sendable, Equatable {
    /// A file that does not exist on Box yet: `name` in folder `parentID`.
    case newFile(parentID: String, name: String)
    /// A new version of an existing file. `baseETag` / `baseSHA1` describe the Box version the local
    /// content was based on: the upload sends `If-Match: baseETag`, so a change made on Box in the
    /// meantime is detected (412) instead of overwritten. `parentID` and `name` place the conflicted
    /// copy beside it.
    case newVersion(fileID: String, parentID: String, name: String, baseETag: String?, baseSHA1: String?)

    public var parentID: String {
        switch self {
        case .newFile(let parentID, _), .newVersion(_, let parentID, _, _, _): parentID
        }
    }

    public var name: String {
        switch self {
        case .newFile(_, let name), .newVersion(_, _, let name, _, _): name
        }
    }

    /// The Box file id, for a new version.
    public var fileID: String? {
        if case .newVersion(let fileID, _, _, _, _) = self { return fileID }
        return nil
    }

    /// Where a new file goes (what the journal keeps until Box answers), nil for a new version.
    var sentPlace: SentPlace? {
        if case .newFile(let parentID, let name) = self { return SentPlace(parentID: parentID, name: name) }
        return nil
    }

    /// For debug logs: where the content goes (the name, and the Box file for a new version).
    var logDescription: String {
        switch self {
        case .newFile(let parentID, let name): "new \"\(name)\" in \(parentID)"
        case .newVersion(let fileID, let parentID, let name, _, _): "\(fileID) as \"\(name)\" in \(parentID)"
        }
    }
}
