/// Which downscoped-token scopes allow an operation (tokens without scopes may do everything;
/// `root_readwrite` always suffices).
enum ItemScopes {
    static let read: Set<String> = ["root_readonly", "item_preview", "item_download", "item_upload", "item_share",
                                    "item_delete", "item_rename", "base_explorer", "base_preview", "base_upload",
                                    "base_picker", "base_sidebar", "annotation_edit", "annotation_view_all",
                                    "annotation_view_self", "item_read"]
    static let download: Set<String> = ["root_readonly", "item_download", "base_explorer"]
    static let upload: Set<String> = ["item_upload", "base_upload", "base_explorer"]
    static let rename: Set<String> = ["item_rename", "base_explorer"]
    static let delete: Set<String> = ["item_delete", "base_explorer"]
    static let share: Set<String> = ["item_share", "base_explorer"]
}
