import Crypto
import Foundation
import _CryptoExtras

/// Loads the RSA private key of a Box app for signing JWT assertions.
///
/// Box's developer console hands out an encrypted PKCS#8 PEM (`ENCRYPTED PRIVATE KEY`, PBES2 with
/// PBKDF2 and AES-CBC). swift-crypto parses only unencrypted keys, so the PBES2 envelope is opened here
/// with swift-crypto's own PBKDF2 and AES-CBC. Other envelopes (PBES1, 3DES) are refused with the
/// `openssl pkcs8` command that converts them.
enum PrivateKeyLoader {
    static func load(pem: String, passphrase: String?) throws -> _RSA.Signing.PrivateKey {
        if pem.contains("BEGIN ENCRYPTED PRIVATE KEY") {
            guard let passphrase, !passphrase.isEmpty else {
                throw AuthError(.configuration, "the private key is encrypted and no passphrase was given")
            }
            let der = try decrypt(base64Body(of: pem), passphrase: Array(passphrase.utf8))
            return try parse { try _RSA.Signing.PrivateKey(derRepresentation: der) }
        }
        return try parse { try _RSA.Signing.PrivateKey(pemRepresentation: pem) }
    }

    private static func parse(_ build: () throws -> _RSA.Signing.PrivateKey) throws -> _RSA.Signing.PrivateKey {
        do {
            return try build()
        } catch {
            throw AuthError(.configuration, "the private key is not a readable RSA key (wrong passphrase?)")
        }
    }

    private static func base64Body(of pem: String) throws -> [UInt8] {
        let body = pem.split(whereSeparator: \.isNewline).filter { !$0.hasPrefix("-----") }.joined()
        guard let data = Data(base64Encoded: String(body)) else {
            throw AuthError(.configuration, "the private key PEM is not valid base64")
        }
        return Array(data)
    }

    static let maxIterations = 10_000_000
    static let pbes2 = "1.2.840.113549.1.5.13"
    static let pbkdf2 = "1.2.840.113549.1.5.12"
    static let prfs: [String: KDF.Insecure.PBKDF2.HashFunction] = [
        "1.2.840.113549.2.7": .insecureSHA1, "1.2.840.113549.2.9": .sha256,
        "1.2.840.113549.2.10": .sha384, "1.2.840.113549.2.11": .sha512,
    ]
    static let ciphers: [String: Int] = [
        "2.16.840.1.101.3.4.1.2": 16, "2.16.840.1.101.3.4.1.22": 24, "2.16.840.1.101.3.4.1.42": 32,
    ]
    static let unsupported = AuthError(
        .configuration,
        "the private key uses an encryption boxfs cannot open (only PBES2 with PBKDF2 and AES-CBC); convert it with "
            + "`openssl pkcs8 -topk8 -v2 aes-256-cbc -in old.pem -out new.pem` and put the new key in config.json")

    /// EncryptedPrivateKeyInfo → the PKCS#8 PrivateKeyInfo DER.
    static func decrypt(_ der: [UInt8], passphrase: [UInt8]) throws -> [UInt8] {
        do {
            var outer = DERReader(der[...])
            var info = try outer.sequence()
            var algorithm = try info.sequence()
            guard try algorithm.objectIdentifier() == pbes2 else { throw unsupported }
            var parameters = try algorithm.sequence()
            var kdf = try parameters.sequence()
            guard try kdf.objectIdentifier() == pbkdf2 else { throw unsupported }
            var kdfParameters = try kdf.sequence()
            let salt = try kdfParameters.octetString()
            let iterations = try kdfParameters.integer()
            // The count goes to PBKDF2 as it is: 0 or a negative one is not a key, an enormous one a mount
            // that never starts. OpenSSL writes 2,048 by default.
            guard (1...maxIterations).contains(iterations) else {
                throw AuthError(
                    .configuration,
                    "the encrypted private key's PBKDF2 iteration count \(iterations) is out of range (1 to \(maxIterations))")
            }
            var prf = KDF.Insecure.PBKDF2.HashFunction.insecureSHA1
            while !kdfParameters.isAtEnd {
                let element = try kdfParameters.next()
                guard element.tag == 0x30 else { continue }  // the optional keyLength INTEGER
                var prfReader = DERReader(element.content)
                guard let hash = prfs[try prfReader.objectIdentifier()] else { throw unsupported }
                prf = hash
            }
            var cipher = try parameters.sequence()
            guard let keyLength = ciphers[try cipher.objectIdentifier()] else { throw unsupported }
            let iv = try cipher.octetString()
            let encrypted = try info.octetString()
            let key = try KDF.Insecure.PBKDF2.deriveKey(
                from: passphrase, salt: Array(salt), using: prf, outputByteCount: keyLength,
                unsafeUncheckedRounds: iterations)
            do {
                return Array(try AES._CBC.decrypt(Array(encrypted), using: key, iv: AES._CBC.IV(ivBytes: Array(iv))))
            } catch {
                throw AuthError(.configuration, "cannot decrypt the private key: is the passphrase right?")
            }
        } catch is DERReader.Malformed {
            throw AuthError(.configuration, "the encrypted private key is not valid PKCS#8")
        }
    }
}
