/// The HTML boxsim serves at a shared link's URL (`SharedLinkPageRoutes`), in place of Box's web app: the item's
/// name and, for a file that may be downloaded, a link to its `download_url`; for a folder, the names it holds.
/// Pages for links a visitor cannot open without more (a password, a login) name nothing of the item, as Box's do not.
enum SharedLinkPage {
    static func item(name: String, isFolder: Bool, size: Int64, downloadURL: String?, children: [String]) -> String {
        var body = "<h1>\(escape(name))</h1>\n<p>\(isFolder ? "Folder" : "File") shared with you through Box (boxsim)."
            + " \(size) bytes.</p>\n"
        if let downloadURL {
            body += "<p><a id=\"download\" href=\"\(escape(downloadURL))\">Download</a></p>\n"
        }
        if isFolder {
            body += "<ul>\n" + children.map { "<li>\(escape($0))</li>\n" }.joined() + "</ul>\n"
        }
        return page(title: name, body: body)
    }

    static let passwordNeeded = page(title: "Password required", body: """
        <h1>This content is password protected</h1>
        <p>Enter the shared link's password in a Box client (the <code>BoxApi</code> header's
        <code>shared_link_password</code>); boxsim's page takes none.</p>

        """)

    static let loginNeeded = page(title: "Sign in", body: """
        <h1>Sign in to view this content</h1>
        <p>This shared link is open to signed-in people of the owner's company or to collaborators only.</p>

        """)

    static let unavailable = page(title: "Link unavailable", body: """
        <h1>This shared file or folder link has been removed or is unavailable to you.</h1>

        """)

    private static func page(title: String, body: String) -> String {
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>\(escape(title)) | Box</title></head>\n<body>\n"
            + body + "</body></html>\n"
    }

    static func escape(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
