/// Box's item name rules (spec: no non-printable ASCII, no `/` or `\`, no trailing spaces, not `.` or `..`,
/// 1–255 characters).
///
/// Two names are the same name when they are equal ignoring case (`ItemRecord.nameKey`: Unicode lower
/// case, so `É` and `é` clash); Unicode normalisation is not applied, as Box keeps canonically
/// equivalent names that differ in code points apart (see docs/BOXSIM.md).
enum NameRules {
    static func validate(_ name: Any?) throws -> String {
        guard let name = name as? String, !name.isEmpty else {
            throw BoxError.badRequest("Item name invalid", code: "item_name_invalid")
        }
        guard name.count <= 255 else { throw BoxError.badRequest("Item name too long", code: "item_name_too_long") }
        let invalid = name == "." || name == ".." || name.hasSuffix(" ")
            || name.unicodeScalars.contains { $0 == "/" || $0 == "\\" || $0.value < 0x20 || $0.value == 0x7F }
        if invalid { throw BoxError.badRequest("Item name invalid", code: "item_name_invalid") }
        return name
    }
}
