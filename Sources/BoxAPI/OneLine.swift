extension String {
    /// The text with line breaks and other control characters escaped (`\n`, `\u{1B}`), so that text
    /// from outside (a server's message, a field's value, an option's name) quoted in an error or a
    /// log line keeps it one line.
    public var oneLine: String {
        func isBreaking(_ scalar: Unicode.Scalar) -> Bool {
            switch scalar.properties.generalCategory {
            case .control, .lineSeparator, .paragraphSeparator: true
            default: false
            }
        }
        guard unicodeScalars.contains(where: isBreaking) else { return self }
        var result = ""
        for scalar in unicodeScalars {
            if isBreaking(scalar) { result += scalar.escaped(asASCII: true) } else { result.unicodeScalars.append(scalar) }
        }
        return result
    }
}
