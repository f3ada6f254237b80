// swift-tools-version: 6.1
import PackageDescription

// The fuzz targets that need SwiftNIO or the model runtime (Docs/Testing.md, "Fuzzing"),
// built by Fuzz/fuzz.sh with SwiftPM into .build-fuzz/spm:
//
//   swift build -c release --scratch-path .build-fuzz/spm --sanitize=fuzzer --sanitize=address \
//     -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library
//
// The `-Xswiftc -sanitize=fuzzer,address` matters: SwiftPM passes `--sanitize` as two
// `-sanitize=` options and the compiler keeps only the last (address), so without it no
// Swift code gets libFuzzer's coverage instrumentation. SwiftPM's own `--sanitize=fuzzer`
// is kept for the C modules (llhttp) and the link.
//
// The daemon's code under test is compiled here from its own files, linked in by symlink
// (Sources/http, Sources/websocket, Sources/Linked): the types are internal to
// ArborDaemon, and the daemon module as a whole would bring Hummingbird, PostgresNIO and
// GRDB. The runtime (Arbor) is built without its macro plugin, so no swift-syntax: the
// snapshot and tree targets' models are the macro's expansion, written out (Models.swift).
// Versions are those of the main package's Package.resolved.
let package = Package(
  name: "ArborFuzz",
  platforms: [.macOS(.v15)],
  dependencies: [
    .package(url: "https://github.com/apple/swift-nio", exact: "2.101.3"),
    .package(url: "https://github.com/apple/swift-nio-extras", exact: "1.35.2"),
    .package(url: "https://github.com/apple/swift-http-types", exact: "1.8.0"),
    .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
    .package(url: "https://github.com/pointfreeco/swift-identified-collections", exact: "1.1.1"),
    .package(url: "https://github.com/pointfreeco/swift-dependencies", exact: "1.17.1"),
    .package(url: "https://github.com/pointfreeco/xctest-dynamic-overlay", exact: "1.13.1"),
    .package(url: "https://github.com/pointfreeco/swift-concurrency-extras", exact: "1.4.3"),
    .package(url: "https://github.com/pointfreeco/swift-custom-dump", exact: "1.7.3"),
    .package(url: "https://github.com/hummingbird-project/swift-websocket.git", exact: "1.6.2"),
  ],
  targets: [
    // `check`, shared by the targets.
    .target(name: "FuzzCheck"),
    // NIO's WebSocket frame decoder, MaskedFramesOnly, the UTF-8 check, the Lines framer.
    .executableTarget(
      name: "websocket",
      dependencies: [
        "FuzzCheck",
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOEmbedded", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "NIOWebSocket", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: [.define("HTTP")]
    ),
    // NIO's HTTP/1 request decoder (llhttp), the HTTP types conversion Hummingbird uses,
    // LoopbackHost and HTTPAccess.
    .executableTarget(
      name: "http",
      dependencies: [
        "FuzzCheck",
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOEmbedded", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
        .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
      ],
      swiftSettings: [.define("HTTP")]
    ),
    // A snapshot record decoded and a tree restored from it.
    .executableTarget(
      name: "snapshot",
      dependencies: ["FuzzCheck", "Arbor", "ArborJSON", .product(name: "Dependencies", package: "swift-dependencies")]
    ),
    // A model tree changed by a fuzzed program, and the watch hub, its path watchers and a
    // standby's copy following it by its patches.
    .executableTarget(
      name: "tree",
      dependencies: [
        "FuzzCheck", "Arbor", "ArborJSON", "ArborRPC", "ArborLocking",
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "IdentifiedCollections", package: "swift-identified-collections"),
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
      ]
    ),
    // The upgrade decision (WebSocketUpgrade.outcome) on parsed request heads.
    .executableTarget(
      name: "upgrade",
      dependencies: [
        "FuzzCheck",
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOEmbedded", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
        .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
      ],
      swiftSettings: [.define("HTTP")]
    ),
    // MaskedFramesOnly and WSCore's handler assembling messages, the bridge's request lines
    // and Lines framer, the daemon's LineDecoder.
    .executableTarget(
      name: "wsmessage",
      dependencies: [
        "FuzzCheck", "ArborRPC",
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOEmbedded", package: "swift-nio"),
        .product(name: "NIOWebSocket", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "WSCore", package: "swift-websocket"),
      ],
      swiftSettings: [.define("HTTP")]
    ),
    .target(
      name: "Arbor",
      dependencies: [
        "ArborLocking", "ArborJSON", "ArborRecords",
        .product(name: "IdentifiedCollections", package: "swift-identified-collections"),
        .product(name: "Dependencies", package: "swift-dependencies"),
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
        .product(name: "ConcurrencyExtras", package: "swift-concurrency-extras"),
        .product(name: "CustomDump", package: "swift-custom-dump"),
      ],
      path: "Sources/Linked/Arbor",
      // Its macro declarations name a plugin this build leaves out (each a warning here);
      // nothing in the runtime expands them.
      swiftSettings: [.unsafeFlags(["-suppress-warnings"])]
    ),
    .target(name: "ArborJSON", path: "Sources/Linked/ArborJSON"),
    .target(name: "ArborRecords", dependencies: ["ArborJSON"], path: "Sources/Linked/ArborRecords"),
    .target(name: "ArborRPC", dependencies: ["ArborJSON"], path: "Sources/Linked/ArborRPC"),
    .target(name: "ArborLocking", path: "Sources/Linked/ArborLocking"),
  ],
  swiftLanguageModes: [.v6]
)
