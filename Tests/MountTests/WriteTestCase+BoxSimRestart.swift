import BoxTestSupport
import Foundation
import XCTest

/// A boxsim that can be stopped and started again on the same data at the same address, as Box going away and
/// coming back (offline tests).
extension WriteTestCase {
    /// boxsim holding `texts` in a data folder of this test's that outlives it (`restartBoxSim`).
    func startBoxSimKeepingItsData(texts: [String: String]) async throws -> (BoxSimProcess, URL) {
        let seed = try SeedTree.make(texts: texts)
        temporaryDirectories.append(seed)
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("boxsim-data-\(UUID().uuidString)")
        temporaryDirectories.append(data)
        let sim = try await BoxSimProcess.start(seed: seed, dataDirectory: data)
        boxsim = sim
        return (sim, data)
    }

    /// boxsim started again on `data` at the address `stopped` had, as Box coming back.
    func restartBoxSim(_ stopped: BoxSimProcess, on data: URL) async throws {
        let port = try XCTUnwrap(URL(string: stopped.baseURL)?.port)
        boxsim = try await BoxSimProcess.start(extraArgs: ["--port", String(port)], dataDirectory: data)
    }
}
