// swift-tools-version:6.0
import Foundation
import PackageDescription

// Linux only: the code calls Glibc, libcurl, ncursesw and Linux's sync_file_range directly.

// chafa's headers and GLib's, which they include, given to every module that reads CChafa's
// shim. Not through pkg-config, whose libraries SwiftPM would link: libchafa is opened when a
// cover is first drawn (see the shim), not loaded at every start.
#if arch(arm64)
let multiarch = "aarch64-linux-gnu"
#else
let multiarch = "x86_64-linux-gnu"
#endif
let chafaHeaders: [SwiftSetting] = [.unsafeFlags(
    ["/usr/include/chafa", "/usr/lib/\(multiarch)/chafa/include", "/usr/include/glib-2.0", "/usr/lib/\(multiarch)/glib-2.0/include"]
        .flatMap { ["-Xcc", "-I" + $0] })]

let package = Package(
    name: "newsstand",
    products: [
        .executable(name: "newsstand", targets: ["newsstand"]),
        .library(name: "NewsstandKit", targets: ["NewsstandKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
    ],
    targets: [
        .systemLibrary(name: "CCurl", path: "Sources/CCurl"),
        .systemLibrary(name: "CNcurses", path: "Sources/CNcurses"),
        .systemLibrary(name: "CStb", path: "Sources/CStb"),
        .systemLibrary(name: "CLinux", path: "Sources/CLinux"),
        .systemLibrary(name: "CText", path: "Sources/CText"),
        .systemLibrary(name: "CDigest", path: "Sources/CDigest"),
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CChafa", path: "Sources/CChafa", providers: [.apt(["libchafa-dev"])]),
        .target(
            name: "NewsstandKit",
            dependencies: [
                "CCurl",
                "CLinux",
                "CText",
                "CDigest",
                "CSQLite",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "TOMLKit", package: "TOMLKit"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]
        ),
        .target(name: "ShelfUI", dependencies: ["NewsstandKit", "CNcurses", "CStb", "CChafa"], swiftSettings: chafaHeaders),
        .executableTarget(
            name: "newsstand",
            dependencies: [
                "NewsstandKit",
                "ShelfUI",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: chafaHeaders,
            // The release binary is linked by the toolchain's lld with packed relative relocations
            // (92,000 RELATIVE entries, 2.2 MB that the loader read at every start, become 40 KB)
            // and without exporting its own symbols (nothing loads it as a library; the 1.3 MB
            // of symbol tables were searched at every start): 2.6 MiB less resident, sooner.
            linkerSettings: [.unsafeFlags(
                ["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker", "--no-export-dynamic"],
                .when(configuration: .release))]
        ),
        // For `make bench`: the colour difference between pictures and covers drawn in cells.
        .executableTarget(name: "cover-fidelity", dependencies: ["ShelfUI"], path: "bench/CoverFidelity", swiftSettings: chafaHeaders),
        .target(
            name: "TestSupport",
            dependencies: ["NewsstandKit"],
            path: "Tests/TestSupport",
            exclude: ["TLS"]
        ),
        .testTarget(name: "NewsstandKitTests", dependencies: ["NewsstandKit", "TestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "ShelfUITests", dependencies: ["ShelfUI", "NewsstandKit", "TestSupport"], exclude: ["Snapshots"], swiftSettings: chafaHeaders),
        .testTarget(name: "EndToEndTests", dependencies: ["NewsstandKit", "ShelfUI", "TestSupport"], swiftSettings: chafaHeaders),
    ]
)

// Strict settings for every Swift target, in one place.
for target in package.targets where target.type != .system {
    var settings = target.swiftSettings ?? []
    settings.append(.swiftLanguageMode(.v6))
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    target.swiftSettings = settings
}

// The libFuzzer target, only when asked for: `make fuzz` (see Fuzz/README.md).
if ProcessInfo.processInfo.environment["NEWSSTAND_FUZZ"] == "1" {
    package.targets.append(.executableTarget(
        name: "CatalogFuzzer",
        dependencies: ["NewsstandKit"],
        path: "Fuzz/CatalogFuzzer",
        swiftSettings: [.swiftLanguageMode(.v6), .unsafeFlags(["-parse-as-library", "-sanitize=fuzzer,address"])],
        linkerSettings: [.unsafeFlags(["-sanitize=fuzzer,address"])]
    ))
}
