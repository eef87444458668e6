import Foundation
import Testing

@testable import BoxAuth

extension FuzzTier {
    /// The JWT app's private key (`PrivateKeyLoader`: PEM, DER, PKCS#8 PBES2 envelope): a mutated
    /// encrypted key opens, or is refused with `AuthError`, never a trap or a hang.
    @Suite struct PrivateKeyFuzzTests {
        /// A throwaway 2048-bit key made for this test (`openssl pkcs8 -topk8 -v2 aes-128-cbc
        /// -v2prf hmacWithSHA256 -iter 1`, passphrase `fuzz`); one PBKDF2 round keeps each input fast.
        static let pem = [
            "-----BEGIN ENCRYPTED PRIVATE KEY-----",
            "MIIFLDBWBgkqhkiG9w0BBQ0wSTAoBgkqhkiG9w0BBQwwGwQI4DltTvAEWHkCAQEw",
            "DAYIKoZIhvcNAgkFADAdBglghkgBZQMEAQIEEPsSxNlJBup9f5Qo25JoQkAEggTQ",
            "ziwOABxs0zs+DZgsOxj4rUuEo2qQs8y9t2BduOsfRP9AzLo8L2+djt2A+adPQNKW",
            "FqV0vQv7TqdRVsYuOeEYjD2jqP3iwFmfhHIdSFVXyqvIrgjA3iS3GLikf8Pysbka",
            "z8EKo+K1+5nyTdjJJznggWgmpWei4EJ8qCnxqct7Grg9+B7rBUhakFZWlm5JIJt7",
            "Iks89kxfKef2F9y4uhY2yRqR9CRQe7BhMz/XfSuDnI8aVkiq5Io/wsB7dl4aYK7c",
            "+mtXY4L92NXSWxvEefu50oDiWvG7YvkAlTYDpfMW38ndYhj865cRnzo35bPlr9c/",
            "/qFUbhpNlfnDV0ANwhOhr+BMgE34PcLeVz7qupZu1qbgjAoKlcB1mX1Cgp+MGlXB",
            "+4bRwPNNU6ZGEVbxUwCSpTgpK0oDhvSTezBAvGb0VMA6wvZCWgrb660lQOZcjIfY",
            "qR+CB48xm5O8S3t0gD9McL+yRuTaJTcgi6qYUbKhS/8i+sIAFXdVtI0sOR5JDeCT",
            "jy4fCewKE1w7Y9OJX9dWvvbpezBW2evIcBDLucD3ONhbD39W6xd38uAqmb6KHCP5",
            "jLtrS5z5iyCl8AC/ebT1Mksy2axkdFMVh0Et6l0o397vOVXU0+8ZwJGViW5y94a4",
            "m2Li5zO/rzABX4KxWc6rbAxRraWhdpaBMou4A9xTRmNHx+cB4Q4LDbz1aeL7/JTu",
            "Kjx/+n39QJ0bW5G5YwTtmhwjFZY2cCaaAbcRm/ZcD9ggSVKyku1gMEYId2367aua",
            "U+QvaeNdI0y1nBY/75/yxfS+I7DMzT5Dup34ziXNqLLIPfKFc+NHzOrq6bc/5Y4L",
            "IxXYjqD281R4NHDAclByRE1ocwMe0PDV3y2yo3hdLVF8lGEz31BarYYVxgGo3OAk",
            "tXcW+3pOSfH9RhxbP89fx/XRYbJp50WOjKLSEfYW6zm2VtHzDSJX8T6cMVGa14vf",
            "kOzEYhcZ17S14xJqowird0qwZB4wHUaRYUKT79DL/Rqd30/tIxof+30P8HmQi1/m",
            "SEakrqjAb2/bow1j4yIxsH6SjWOjfehHQECYhupMKbLYwuaWNs+Wuw2F4DVk1niz",
            "W4rXRNoTVfqExBF4NqnSyo45qk93yQpo9LZ21URl4QvyW5QWgP0ulzTuldxtgbyc",
            "gapx49b59dnwVcJPoM4yD3YVh4qZwcUapseI1AvQ/RfahX/PuIaIj1s+HpoPet07",
            "nnv3X7bW8d5U3x5DUjj80nxysyyEwHSQJYrUnZDxjbOqkRPQilul1ssSDLLAhRnE",
            "WuGd0YF5UU4eezVT0BFP+mo7e3hmoMR/nly+wDOINbb8sD6bw+kzYpFH2jXuJgI2",
            "4RVeMu3cxIDgT+FIPkHKrbSNenTXinn9y+m6A+XPhniI9/gflNNb3wimtoIDfuYx",
            "Ii7mWu1iOd9rd6tWHXppY2DZQcZsHStTMYZIKN2lpmexCzVrjWROb8jEyupuu55j",
            "kfwf2+1TEMZRHG/BIsPVHM8kdaMZVUrr/+oaGsSGN22dCzPwh8Hs/e7GHLnqzfVG",
            "Egpad60kATFLk95Eg9DdSPmSxs2jbIyDDftJ9cVadBotA0G3iKUVOUtUirnE3QLc",
            "EOsnzvodIzBuBTAJJD+RSi4IFUTHvMOTp80uYIZr5Ck=",
            "-----END ENCRYPTED PRIVATE KEY-----",
        ].joined(separator: "\n")

        static let der: [UInt8] = {
            let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
            return Array(Data(base64Encoded: String(body))!)
        }()

        @Test func theSeedKeyOpens() throws {
            _ = try PrivateKeyLoader.load(pem: Self.pem, passphrase: "fuzz")
        }

        @Test func mutatedEnvelopesOpenOrAreRefusedCleanly() {
            Fuzz.run("PKCS#8 envelope", iterations: 1500) { random in
                let der = random.mutate(Self.der)
                do {
                    _ = try PrivateKeyLoader.decrypt(der, passphrase: Array("fuzz".utf8))
                } catch let error as AuthError {
                    try Fuzz.check(String(describing: error).isOneLine, "\(error)")
                } catch {
                    throw Fuzz.Failure(description: "not an AuthError: \(error)")
                }
                if random.chance(0.1) {
                    let text = random.mutate(Self.pem)
                    do { _ = try PrivateKeyLoader.load(pem: text, passphrase: "fuzz") } catch let error as AuthError {
                        try Fuzz.check(String(describing: error).isOneLine, "\(error)")
                    } catch {
                        throw Fuzz.Failure(description: "not an AuthError: \(error)")
                    }
                }
            }
        }

        /// Regression: the PBKDF2 iteration count was read unsigned and taken as it came: 0, a negative or
        /// an enormous count reached the key derivation (a trap, or a mount that never starts).
        @Test func anIterationCountOutOfRangeIsRefused() throws {
            var reader = DERReader([0x02, 0x01, 0xFF][...])
            #expect(try reader.integer() == -1)
            let at = try #require((0..<(Self.der.count - 3)).first {
                Self.der[$0] == 0x02 && Self.der[$0 + 1] == 0x01 && Self.der[$0 + 2] == 0x01
            })
            for count: UInt8 in [0x00, 0xFF] {
                var der = Self.der
                der[at + 2] = count
                #expect {
                    try PrivateKeyLoader.decrypt(der, passphrase: Array("fuzz".utf8))
                } throws: { "\($0)".contains("iteration count") }
            }
        }
    }
}
