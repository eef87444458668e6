import Glibc
import XCTest

/// The model's own rules, where Box differs from a local disk (a wrong rule shows as a divergence the mount
/// did not cause).
final class FileModelTests: XCTestCase {
    /// Box's names ignore case: a rename onto a name another entry holds in another case is refused, but a rename
    /// that changes only the case of its own name is not (soak 43184: the model let `d1/F0 -> F0` pass beside `f0`,
    /// which the mount rightly refused).
    func testARenameOntoANameHeldInAnotherCaseIsRefusedUnlessItIsTheSourcesOwn() {
        var model = FileModel()
        let fill = Fill(length: 3, seed: 1)
        for op in [Op.writeFile("f0", fill), .mkdir("d1"), .writeFile("d1/F0", fill), .writeFile("G0", fill)] {
            XCTAssertEqual(model.apply(op), .ok, "\(op)")
        }
        XCTAssertEqual(model.apply(.rename("d1/F0", "F0")), .error(EEXIST), "beside f0, in another folder")
        XCTAssertEqual(model.apply(.rename("G0", "F0")), .error(EEXIST), "beside f0, in the same folder")
        XCTAssertEqual(model.apply(.rename("G0", "g0")), .ok, "its own name in another case")
        XCTAssertEqual(model.apply(.rename("d1/F0", "G0")), .error(EEXIST), "beside g0, which was G0")
        XCTAssertEqual(model.apply(.rename("d1/F0", "H0")), .ok)
        XCTAssertEqual(model.listing(""), "H0:file:3 d1:dir f0:file:3 g0:file:3")
    }
}
