/// Which fields a response carries: Box's standard set, or (with `fields=`) the requested ones plus a base set.
enum FieldSelection: Sendable {
    case standard
    case requested([String])

    init(query value: String?) {
        guard let value else { self = .standard; return }
        let names = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        self = names.isEmpty ? .standard : .requested(names)
    }

    /// The fields to write, in `order`: the standard list, or `base` plus what was asked for.
    /// Requested fields are written in Box's order; known extra fields follow in the order asked.
    func resolve(standard: [String], base: [String], known: [String]) -> [String] {
        switch self {
        case .standard:
            return standard
        case .requested(let names):
            let asked = Set(names)
            var result = known.filter { base.contains($0) || asked.contains($0) }
            for name in names where !result.contains(name) && known.contains(name) { result.append(name) }
            return result
        }
    }
}
