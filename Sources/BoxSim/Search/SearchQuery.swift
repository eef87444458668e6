/// Box's search `query`: words and `"quoted phrases"`, joined by `AND`, `OR` (also implied between terms) and
/// `NOT`, upper case only (lower-case `and`/`or`/`not` are words). `AND` binds tighter than `OR`, so the query
/// is a list of clauses, any of which must hold; a clause holds when each of its terms is (or, negated, is not)
/// in the text. Terms match whole words, case-insensitively; a term of several words (`"Blue-Box"`, `blue.box`)
/// matches them in that order, next to each other, as Box's phrase search does.
struct SearchQuery: Sendable, Equatable {
    struct Term: Sendable, Equatable {
        var words: [String]
        var negated: Bool
    }

    var clauses: [[Term]]

    /// nil when the query has no term at all.
    init?(_ text: String) {
        var clauses: [[Term]] = []
        var current: [Term] = []
        var negateNext = false
        var joinNext = false
        for token in Self.tokens(text) {
            switch token {
            case .word("AND"): joinNext = true
            case .word("OR"): joinNext = false; if !current.isEmpty { clauses.append(current); current = [] }
            case .word("NOT"): negateNext = true
            case .word(let word), .phrase(let word):
                let words = Self.words(word)
                guard !words.isEmpty else { continue }
                if !joinNext && !negateNext && !current.isEmpty { clauses.append(current); current = [] }
                current.append(Term(words: words, negated: negateNext))
                negateNext = false
                joinNext = false
            }
        }
        if !current.isEmpty { clauses.append(current) }
        guard !clauses.isEmpty else { return nil }
        self.clauses = clauses
    }

    /// Whether the query holds for a text already split by `words(_:)`.
    func matches(_ words: [String]) -> Bool {
        clauses.contains { clause in
            clause.allSatisfy { term in Self.contains(words, term.words) != term.negated }
        }
    }

    /// Lower-cased runs of letters and digits.
    static func words(_ text: String) -> [String] {
        text.lowercased().split { !($0.isLetter || $0.isNumber) }.map(String.init)
    }

    private static func contains(_ words: [String], _ phrase: [String]) -> Bool {
        guard phrase.count <= words.count else { return false }
        for start in 0...(words.count - phrase.count) where words[start] == phrase[0] {
            if Array(words[start..<(start + phrase.count)]) == phrase { return true }
        }
        return false
    }

    private enum Token: Equatable {
        case word(String), phrase(String)
    }

    private static func tokens(_ text: String) -> [Token] {
        var tokens: [Token] = []
        var rest = Substring(text)
        while let first = rest.first {
            if first.isWhitespace {
                rest = rest.dropFirst()
            } else if first == "\"" {
                let body = rest.dropFirst()
                let end = body.firstIndex(of: "\"") ?? body.endIndex
                tokens.append(.phrase(String(body[..<end])))
                rest = end < body.endIndex ? body[body.index(after: end)...] : ""
            } else {
                let end = rest.firstIndex { $0.isWhitespace || $0 == "\"" } ?? rest.endIndex
                tokens.append(.word(String(rest[..<end])))
                rest = rest[end...]
            }
        }
        return tokens
    }
}
