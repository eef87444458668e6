/// Just enough DER to read PKCS#8 `EncryptedPrivateKeyInfo` and its PBES2 parameters (RFC 8018).
struct DERReader {
    struct Element {
        var tag: UInt8
        var content: ArraySlice<UInt8>
    }

    struct Malformed: Error {}

    private var bytes: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { bytes.isEmpty }

    mutating func next() throws(Malformed) -> Element {
        guard let tag = bytes.popFirst(), let first = bytes.popFirst() else { throw Malformed() }
        var length = Int(first)
        if first & 0x80 != 0 {
            let count = Int(first & 0x7F)
            guard count > 0, count <= 4, bytes.count >= count else { throw Malformed() }
            length = 0
            for _ in 0..<count { length = length << 8 | Int(bytes.removeFirst()) }
        }
        guard bytes.count >= length else { throw Malformed() }
        let content = bytes.prefix(length)
        bytes = bytes.dropFirst(length)
        return Element(tag: tag, content: content)
    }

    mutating func expect(_ tag: UInt8) throws(Malformed) -> ArraySlice<UInt8> {
        let element = try next()
        guard element.tag == tag else { throw Malformed() }
        return element.content
    }

    mutating func sequence() throws(Malformed) -> DERReader { DERReader(try expect(0x30)) }
    mutating func octetString() throws(Malformed) -> ArraySlice<UInt8> { try expect(0x04) }

    /// A two's-complement INTEGER of at most 8 bytes (`02 01 FF` is -1).
    mutating func integer() throws(Malformed) -> Int {
        let content = try expect(0x02)
        guard let first = content.first, content.count <= 8 else { throw Malformed() }
        return content.dropFirst().reduce(Int(Int8(bitPattern: first))) { $0 << 8 | Int($1) }
    }

    /// An OBJECT IDENTIFIER in dotted form, e.g. `1.2.840.113549.1.5.13`.
    mutating func objectIdentifier() throws(Malformed) -> String {
        let content = try expect(0x06)
        guard let first = content.first else { throw Malformed() }
        var parts = [Int(first) / 40, Int(first) % 40]
        var value = 0
        for byte in content.dropFirst() {
            value = value << 7 | Int(byte & 0x7F)
            if byte & 0x80 == 0 {
                parts.append(value)
                value = 0
            }
        }
        return parts.map(String.init).joined(separator: ".")
    }
}
