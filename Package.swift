// swift-tools-version: 6.2
import PackageDescription

// Built, tested and supported on Linux. The libraries are meant for Apple platforms too (a
// scoring app on a phone and a watch): the minimums below are those of the APIs they use
// (`Synchronization.Mutex`). No Apple build was made here; what only an Apple machine can check
// is listed in docs/architecture.md, "Platform". `make test-portable` builds with the change
// monitor Apple platforms use (`-Xswiftc -DHYZER_PORTABLE_MONITOR`: no inotify).

/// libsodium. On Linux, the system's (libsodium-dev), found through pkg-config. On an Apple host
/// (Xcode, or `swift build` on a Mac), which builds for macOS, iOS and watchOS, none of which has
/// a libsodium: an XCFramework at `Vendor/CSodium.xcframework` whose headers declare the module
/// `CSodium`, built from libsodium's release with its `dist-build/apple-xcframework.sh` and kept
/// out of git (docs/architecture.md, "Platform", step by step). HyzerCrypto imports `CSodium`
/// either way.
#if canImport(Darwin)
    let sodium: Target = .binaryTarget(name: "CSodium", path: "Vendor/CSodium.xcframework")
#else
    let sodium: Target = .systemLibrary(
        name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"]), .brew(["libsodium"])])
#endif

/// Settings every target of ours shares: Swift 6 language mode (the tools version's default),
/// and warnings are errors everywhere, not only in CI.
let strict: [SwiftSetting] = [.treatAllWarnings(as: .error)]

let package = Package(
    name: "hyzer-peer",
    platforms: [.macOS(.v15), .iOS(.v18), .watchOS(.v11)],
    products: [
        .library(name: "HyzerDomain", targets: ["HyzerDomain"]),
        .library(name: "HyzerKit", targets: ["HyzerKit"]),
        .library(name: "HyzerSync", targets: ["HyzerSync"]),
        .library(name: "HyzerEngine", targets: ["HyzerEngine"]),
        .executable(name: "hyzer-peer", targets: ["hyzer-peer"]),
        .executable(name: "scorekeeper", targets: ["scorekeeper"]),
        .executable(name: "leaderboard", targets: ["leaderboard"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // `make docs`: the DocC catalogs (docs/embedding.md); nothing else uses it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/swiftcsv/SwiftCSV", from: "0.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // Sync through an S3-compatible bucket (docs/bucket-sync.md): HTTP and the XML listings.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/CoreOffice/XMLCoder", from: "0.18.2"),
    ],
    targets: [
        sodium,
        // The Bonjour C API (`dns_sd.h`) on Linux: avahi's compatibility library
        // (libavahi-compat-libdnssd-dev) over the system's avahi-daemon. Apple platforms have it
        // natively (docs/discovery.md, "Why dns_sd.h").
        // The header is named by its full path (no pkg-config: its flags carry a -D SwiftPM refuses).
        .systemLibrary(name: "CDNSSD", providers: [.apt(["libavahi-compat-libdnssd-dev"])]),
        // Pure scoring rules and the op model: no I/O, no clock, no randomness.
        .target(name: "HyzerDomain", swiftSettings: strict),
        // Ed25519 identities, BLAKE2b hashes and secret boxes, wrapping libsodium.
        .target(name: "HyzerCrypto", dependencies: ["CSodium"], swiftSettings: strict),
        // The replica: SQLite store, signed op log, ingest, materialised views.
        .target(
            name: "HyzerKit",
            dependencies: [
                "HyzerDomain", "HyzerCrypto",
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C interface, for binding rows without GRDB's value boxes (`BatchInsert`).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "SwiftCSV", package: "SwiftCSV"),
            ],
            swiftSettings: strict
        ),
        // Bundles, groups and transports between replicas.
        .target(
            name: "HyzerSync",
            dependencies: [
                "HyzerKit", "HyzerCrypto",
                .target(name: "CDNSSD", condition: .when(platforms: [.linux])),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "XMLCoder", package: "XMLCoder"),
            ],
            swiftSettings: strict
        ),
        // The façade an app embeds: typed commands, live queries, the group (docs/embedding.md).
        .target(
            name: "HyzerEngine",
            dependencies: ["HyzerKit", "HyzerSync", "HyzerDomain", "HyzerCrypto", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict),
        // The worked examples of docs/embedding.md, built with everything else: `import HyzerEngine`
        // alone (`make lint` checks that they import no other module of ours).
        .executableTarget(name: "scorekeeper", dependencies: ["HyzerEngine"], path: "Examples/Scorekeeper", swiftSettings: strict),
        // An `@Observable` model over a round's live standings and the sync's status, drawn in a terminal.
        .executableTarget(name: "leaderboard", dependencies: ["HyzerEngine"], path: "Examples/Leaderboard", swiftSettings: strict),
        // The read-only web side of `serve --http`: pages, JSON, live events and metrics (docs/web.md).
        .target(
            name: "HyzerWeb",
            dependencies: [
                "HyzerKit", "HyzerSync", "HyzerDomain", "HyzerCrypto",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // The performance suite and its in-run baselines.
        .target(
            name: "HyzerBench",
            dependencies: [
                "HyzerKit", "HyzerSync", "HyzerWeb", "HyzerSimulation", .product(name: "GRDB", package: "GRDB.swift"),
                // The SeaweedFS the bucket figures sync through (docs/performance.md, "Sync through a bucket").
                "HyzerTestSupport",
                // SQLite's C interface: the ingest figure's second floor binds rows straight into it.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"), .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // The simulator's disk: a SQLite VFS in memory whose power cuts lose every unsynced
        // write and may tear the last (docs/simulation.md, "The simulated disk").
        .target(name: "CSimulatedDisk", path: "Simulations/CSimulatedDisk", linkerSettings: [.linkedLibrary("sqlite3")]),
        // The deterministic simulator: real replicas over a simulated world (docs/simulation.md).
        .target(
            name: "HyzerSimulation",
            dependencies: ["HyzerKit", "HyzerSync", "HyzerDomain", "HyzerCrypto", "CSimulatedDisk"],
            path: "Simulations/HyzerSimulation",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "hyzer-peer",
            dependencies: [
                "HyzerEngine", "HyzerKit", "HyzerSync", "HyzerWeb", "HyzerBench", "HyzerSimulation",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // Shared test support: temporary directories, running the built binary, a real S3 store
        // and a proxy in front of it that fails chosen requests.
        .target(
            name: "HyzerTestSupport",
            dependencies: [
                "HyzerKit", "HyzerSync",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            swiftSettings: strict),
        .testTarget(name: "HyzerDomainTests", dependencies: ["HyzerDomain", "HyzerTestSupport"], swiftSettings: strict),
        .testTarget(
            name: "HyzerKitTests",
            dependencies: [
                "HyzerKit", "HyzerDomain", "HyzerCrypto", "HyzerTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "HyzerLiveSyncTests",
            dependencies: [
                "HyzerSync", "HyzerKit", "HyzerDomain", "HyzerCrypto", "HyzerBench", "HyzerTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "HyzerPeerTests",
            dependencies: [
                "HyzerKit", "HyzerSync", "HyzerCrypto", "HyzerDomain", "HyzerBench", "HyzerTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "HyzerWebTests",
            dependencies: ["HyzerWeb", "HyzerKit", "HyzerSync", "HyzerBench", "HyzerTestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "HyzerSimulationTests",
            dependencies: [
                "HyzerSimulation", "HyzerKit", "HyzerSync", "HyzerDomain", "HyzerTestSupport", "CSimulatedDisk",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "HyzerEngineTests",
            dependencies: [
                "HyzerEngine", "HyzerKit", "HyzerSync", "HyzerDomain", "HyzerTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strict
        ),
        // An app's side of the façade: `import HyzerEngine` beside Swift's `Observation`, an
        // `@Observable` model following live queries (docs/embedding.md).
        .testTarget(
            name: "HyzerAppTests", dependencies: ["HyzerEngine", "HyzerTestSupport"], swiftSettings: strict),
        .testTarget(
            name: "HyzerSyncTests",
            dependencies: ["HyzerSync", "HyzerKit", "HyzerDomain", "HyzerCrypto", "HyzerTestSupport"],
            swiftSettings: strict
        ),
    ]
)

// The libFuzzer targets (docs/fuzzing.md): declared only when `HYZER_FUZZ` is set, because they
// link only with `-sanitize=fuzzer`, which supplies libFuzzer. `make fuzz` builds them in their
// own scratch directory; the ordinary build and tests never see them.
if Context.environment["HYZER_FUZZ"] != nil {
    let fuzzTargets = [
        "FuzzSealedFile", "FuzzBundle", "FuzzIngest", "FuzzFrames", "FuzzHandshake",
        "FuzzSyncMessage", "FuzzInvite", "FuzzVectorFile", "FuzzOpPayload", "FuzzLineage", "FuzzDiscoveryRecord",
        "FuzzBucketListing",
    ]
    // libFuzzer's driver, declared for Swift, and the entry every target's `main` calls.
    package.targets.append(.target(name: "CLibFuzzer", path: "Fuzz/CLibFuzzer"))
    package.targets.append(.target(name: "FuzzDriver", dependencies: ["CLibFuzzer"], path: "Fuzz/FuzzDriver", swiftSettings: strict))
    package.targets.append(
        .target(
            name: "FuzzSupport",
            dependencies: [
                "HyzerKit", "HyzerSync", "HyzerCrypto", "HyzerDomain",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Fuzz/FuzzSupport",
            swiftSettings: strict
        ))
    for name in fuzzTargets {
        package.targets.append(
            .executableTarget(
                name: name,
                dependencies: [
                    "FuzzDriver", "FuzzSupport", "HyzerKit", "HyzerSync", "HyzerCrypto", "HyzerDomain",
                    .product(name: "NIOCore", package: "swift-nio"),
                    .product(name: "NIOEmbedded", package: "swift-nio"),
                ],
                path: "Fuzz/Targets/\(name)",
                swiftSettings: strict
            ))
    }
    // Writes the seed corpora from real bundles, files, tokens and messages: `make fuzz-corpus`.
    package.targets.append(
        .executableTarget(
            name: "FuzzCorpus",
            dependencies: ["FuzzSupport", "HyzerKit", "HyzerSync", "HyzerCrypto", "HyzerDomain"],
            path: "Fuzz/FuzzCorpus",
            swiftSettings: strict
        ))
}
