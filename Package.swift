// swift-tools-version:6.0
// boxfs: a FUSE filesystem for Box cloud storage, and boxsim, a Box-compatible server.
// Data flows one way: BoxFUSE → BoxFS → (Transfers) → BoxAPI → BoxAuth/CurlHTTP → CCurl.
// SystemCalls sits below them all: every target that does POSIX file I/O does it through it.
// BoxSim shares no code with the client side.
import PackageDescription

let strict: [SwiftSetting] = [.swiftLanguageMode(.v6)]

let package = Package(
    name: "boxfs",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "boxfs", targets: ["boxfs"]),
        .executable(name: "boxsim", targets: ["boxsim"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // boxsim's gzip answers (Box compresses JSON for clients that ask): zlib over NIO's buffers.
        .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.5.0"),
    ],
    targets: [
        // C shims over system libraries.
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CFuse", pkgConfig: "fuse3", providers: [.apt(["libfuse3-dev"])]),

        // The one wrapper over POSIX file calls: EINTR retried, short reads and writes finished, errno kept.
        .target(name: "SystemCalls", dependencies: [], swiftSettings: strict),
        // HTTP over curl's multi interface: one driver thread, async callers.
        .target(name: "CurlHTTP", dependencies: ["CCurl", "SystemCalls"], swiftSettings: strict),
        // Tokens: sources, stores, the single-flight authenticator.
        .target(name: "BoxAuth", dependencies: [
            "CurlHTTP", "SystemCalls",
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "_CryptoExtras", package: "swift-crypto"),
            .product(name: "Logging", package: "swift-log"),
        ], swiftSettings: strict),
        // Box REST: endpoints, errors, paging, retries, headers.
        .target(name: "BoxAPI", dependencies: [
            "BoxAuth", "CurlHTTP", "SystemCalls",
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "Logging", package: "swift-log"),
        ], swiftSettings: strict),
        // Crash-safe write-back: the upload journal (SQLite) and the uploader (simple, chunked, conflicts).
        .target(name: "WriteBack", dependencies: [
            "BoxAPI", "CurlHTTP", "SystemCalls",
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "Logging", package: "swift-log"),
        ], swiftSettings: strict),
        // On-disk sparse block store keyed by (file id, version); read-ahead planning. No network.
        .target(name: "BlockCache", dependencies: [
            "SystemCalls",
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "Logging", package: "swift-log"),
        ], swiftSettings: strict),
        // The read path: shared block store (memory, in-flight fetches, disk cache), per-handle readers.
        .target(name: "Transfers", dependencies: [
            "BoxAPI", "BlockCache", "CurlHTTP",
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "Logging", package: "swift-log"),
        ], swiftSettings: strict),
        // The filesystem core: inodes, item tree, handles, names; no FUSE types.
        .target(name: "BoxFS", dependencies: [
            "BoxAPI", "Transfers", "WriteBack", "SystemCalls",
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "Logging", package: "swift-log"),
        ], swiftSettings: strict),
        // The libfuse3 low-level adapter: async replies, session, mount.
        .target(name: "BoxFUSE", dependencies: [
            "BoxFS", "CFuse", "SystemCalls",
            .product(name: "Logging", package: "swift-log"),
        ], swiftSettings: strict),
        // Command line: mount.boxfs and boxfs subcommands.
        .target(name: "BoxCLI", dependencies: [
            "BoxFUSE", "BoxFS", "BoxAPI", "BoxAuth", "CurlHTTP", "Transfers", "BlockCache", "SystemCalls",
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ], swiftSettings: strict),
        .executableTarget(name: "boxfs", dependencies: ["BoxCLI"], swiftSettings: strict),

        // The Box API emulator.
        .target(name: "BoxSim", dependencies: [
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "CompressNIO", package: "compress-nio"),
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "_CryptoExtras", package: "swift-crypto"),
            .product(name: "Logging", package: "swift-log"),
        ], swiftSettings: strict),
        .executableTarget(name: "boxsim", dependencies: [
            "BoxSim",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], swiftSettings: strict),

        // Test-only helpers: boxsim processes, mounted-filesystem fixtures.
        .target(name: "BoxTestSupport", dependencies: [], path: "Tests/BoxTestSupport", swiftSettings: strict),
        // An in-process Box over HTTPSending: the core's model tests run the whole filesystem against it, no socket.
        .target(name: "FakeBox", dependencies: [
            "CurlHTTP", .product(name: "Crypto", package: "swift-crypto"),
        ], path: "Tests/FakeBox", swiftSettings: strict),

        .testTarget(name: "CurlHTTPTests", dependencies: [
            "CurlHTTP", "BoxTestSupport",
            .product(name: "Hummingbird", package: "hummingbird"), .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "CompressNIO", package: "compress-nio"),
            .product(name: "Logging", package: "swift-log"),
        ], swiftSettings: strict),
        .testTarget(name: "BoxAPITests", dependencies: ["BoxAPI", "CurlHTTP", "BoxTestSupport"], swiftSettings: strict),
        .testTarget(name: "WriteBackTests", dependencies: ["WriteBack", "CurlHTTP", "SystemCalls", "BoxTestSupport"], swiftSettings: strict),
        .testTarget(name: "BoxAuthTests", dependencies: ["BoxAuth", "BoxAPI", "BoxTestSupport"], swiftSettings: strict),
        .testTarget(name: "BoxSimTests", dependencies: ["BoxTestSupport"], swiftSettings: strict),
        // BoxAPI: PacingTests share the mounts' pacing bucket, as another process of the account would.
        .testTarget(name: "MountTests", dependencies: ["BoxTestSupport", "BoxAPI"], swiftSettings: strict),
        // The reference-model tier: random concurrent operations on a real mount checked against a model.
        // The reference-model tier: the same step lists on a real mount (ReferenceModelTests) and against the core
        // in-process over a fake Box (CoreModelTests).
        .testTarget(name: "ModelTests", dependencies: [
            "BoxTestSupport", "FakeBox", "BoxFS", "BoxAPI", "BoxAuth", "CurlHTTP", "Transfers", "WriteBack", "BlockCache", "SystemCalls",
            .product(name: "Crypto", package: "swift-crypto"), .product(name: "Logging", package: "swift-log"),
        ], swiftSettings: strict),
        .testTarget(name: "BlockCacheTests", dependencies: ["BlockCache"], swiftSettings: strict),
        .testTarget(name: "SystemCallsTests", dependencies: ["SystemCalls"], swiftSettings: strict),
        .testTarget(name: "TransfersTests", dependencies: ["Transfers", .product(name: "Crypto", package: "swift-crypto")], swiftSettings: strict),
        // Seeded fuzzing of every parser that takes outside input (docs/TESTING.md, "Fuzzing").
        .testTarget(name: "FuzzTests", dependencies: [
            "BoxAPI", "BoxAuth", "CurlHTTP", "BoxCLI", "BoxSim",
        ], swiftSettings: strict),
        // Pure rules of the filesystem core, tested without a mount.
        .testTarget(
            name: "BoxFSTests",
            dependencies: ["BoxFS", "BoxAPI", "WriteBack", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: strict),
    ]
)
