/// `1 entry`, `2 entries`: a count with its noun, for the CLI's one-line messages.
func counted(_ count: Int, _ singular: String, _ plural: String) -> String {
    count == 1 ? "1 \(singular)" : "\(count) \(plural)"
}
