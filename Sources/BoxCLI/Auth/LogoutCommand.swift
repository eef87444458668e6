import ArgumentParser
import BoxAuth
import CurlHTTP
import Foundation
import Logging

/// `boxfs logout`: revokes the profile's tokens at Box and deletes them from the token store.
struct LogoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout", abstract: "Revoke a profile's Box tokens and forget them.")

    @Option(help: "Profile name.") var profile = ConfigDirectory.defaultProfileName()
    @Flag(help: "Also delete the profile itself.") var forget = false

    func run() async throws {
        do {
            let directory = ConfigDirectory.current()
            guard let saved = try Profile.load(profile, from: directory) else {
                throw StartupError(description: "no profile '\(profile)' in \(directory.path)/profiles")
            }
            if saved.auth != .developer && saved.auth != .delegated {
                let authenticator = try AccountResolver.authenticator(
                    for: saved, endpoint: saved.endpoint, storeKind: nil, directory: directory, http: HTTPClient(),
                    logger: Logger(label: "boxfs.auth"))
                try await authenticator.revoke()
            }
            try? FileManager.default.removeItem(atPath: directory.tokenPath(profile))
            if forget { try? FileManager.default.removeItem(atPath: directory.profilePath(profile)) }
            print("Signed out of profile '\(profile)'\(forget ? " and deleted it" : "").")
        } catch {
            FileHandle.standardError.write(Data("boxfs logout: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}
