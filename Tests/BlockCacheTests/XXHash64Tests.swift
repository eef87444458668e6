import Foundation
import XCTest

@testable import BlockCache

/// The block checksum is XXH64: it must agree with the algorithm's published reference values.
final class XXHash64Tests: XCTestCase {
    private func hash(_ text: String, seed: UInt64 = 0) -> UInt64 {
        Array(text.utf8).withUnsafeBytes { XXHash64.hash($0, seed: seed) }
    }

    func testReferenceValues() {
        XCTAssertEqual(hash(""), 0xEF46_DB37_51D8_E999)
        XCTAssertEqual(hash("", seed: 2_654_435_761), 0xAC75_FDA2_929B_17EF)
        XCTAssertEqual(hash("a"), 0xD24E_C4F1_A98C_6E5B)
        XCTAssertEqual(hash("abc"), 0x44BC_2CF5_AD77_0999)
        XCTAssertEqual(hash("Call me Ishmael."), 0x6D04_390F_C9D6_1A90)
        // Longer than one 32-byte stripe, with 8-, 4- and 1-byte tails.
        XCTAssertEqual(hash("Nobody inspects the spammish repetition"), 0xFBCE_A83C_8A37_8BF1)
    }

    func testEveryByteAndTheSeedMatter() {
        var bytes = [UInt8](blockData(5, count: 4096))
        let original = bytes.withUnsafeBytes { XXHash64.hash($0) }
        for index in [0, 31, 32, 2048, 4095] {
            bytes[index] ^= 0x10
            XCTAssertNotEqual(bytes.withUnsafeBytes { XXHash64.hash($0) }, original, "byte \(index)")
            bytes[index] ^= 0x10
        }
        XCTAssertNotEqual(bytes.withUnsafeBytes { XXHash64.hash($0, seed: 1) }, original)
    }
}
