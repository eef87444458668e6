import BoxAPI
import Foundation

/// The start-up steps of a shared-link mount (`mount.boxfs https://app.box.com/s/TOKEN MOUNTPOINT`):
/// reading the password file and finding the shared folder, each failing with one clear line.
/// The password never appears in a message.
enum SharedLinkStartup {
    /// The password from `-o shared_link_password_file=PATH`: the file's first line, trailing newline removed.
    /// A file that others may read or write is refused (`SecretFile`).
    static func password(file path: String) throws -> String {
        let text = try SecretFile.text(of: path, what: "shared link password file")
        let password = String(text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
            .trimmingCharacters(in: CharacterSet(charactersIn: "\r"))
        guard !password.isEmpty else {
            throw StartupError(description: "the shared link password file \(path) is empty")
        }
        return password
    }

    /// The shared item (a folder, or a file the core shows inside a folder of its own); Box's refusals
    /// become one line each.
    static func sharedRoot(_ client: BoxClient, hasPassword: Bool) async throws -> BoxItem {
        let item: BoxItem
        do {
            item = try await client.sharedItem()
        } catch let error as BoxAPIError where error.isIncorrectSharedLinkPassword {
            throw StartupError(description: hasPassword
                ? "the shared link password is wrong (403 incorrect_shared_item_password)"
                : "the shared link needs a password: use -o shared_link_password_file=PATH")
        } catch let error as BoxAPIError where error.kind == .notFound {
            throw StartupError(description: "the shared link does not exist or is no longer shared (404)")
        } catch let error as BoxAPIError where error.kind == .forbidden {
            throw StartupError(description: "Box refused access to the shared link (403 \(error.code ?? "forbidden")): "
                + "its access level does not include this account")
        }
        guard item.kind != .webLink else { throw StartupError(description: "the shared link is a web link, not a file or folder") }
        return item  // a file is shown as the only entry of the mount's folder
    }
}
