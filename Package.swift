// swift-tools-version: 6.1
import CompilerPluginSupport
import PackageDescription

let package = Package(
  name: "Arbor",
  platforms: [.macOS(.v15)],
  products: [
    .library(name: "Arbor", targets: ["Arbor"]),
    .library(name: "ArborJSON", targets: ["ArborJSON"]),
    .library(name: "ArborRPC", targets: ["ArborRPC"]),
    .library(name: "ArborTesting", targets: ["ArborTesting"]),
    .executable(name: "arbor-benchmarks", targets: ["arbor-benchmarks"]),
    .executable(name: "counterfact-tour", targets: ["counterfact-tour"]),
  ],
  dependencies: [
    .package(url: "https://github.com/swiftlang/swift-syntax", exact: "603.0.1"),
    .package(url: "https://github.com/pointfreeco/swift-macro-testing", from: "0.7.0"),
    .package(url: "https://github.com/pointfreeco/swift-identified-collections", from: "1.1.1"),
    .package(url: "https://github.com/pointfreeco/swift-dependencies", from: "1.17.1"),
    .package(url: "https://github.com/pointfreeco/xctest-dynamic-overlay", from: "1.13.1"),
    .package(url: "https://github.com/pointfreeco/swift-concurrency-extras", from: "1.4.3"),
    .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
  ],
  targets: [
    // The compiler plugin behind @Model and @ModelContainer.
    .macro(
      name: "ArborMacros",
      dependencies: [
        .product(name: "SwiftSyntax", package: "swift-syntax"),
        .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
        .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
        .product(name: "SwiftDiagnostics", package: "swift-syntax"),
        .product(name: "SwiftSyntaxBuilder", package: "swift-syntax"),
      ]
    ),
    // The model runtime: no networking, no persistence. It uses ArborJSON's values
    // (pure data) to write snapshots and change sets as JSON Patch.
    .target(
      name: "Arbor",
      dependencies: [
        "ArborMacros",
        "ArborJSON",
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "IdentifiedCollections", package: "swift-identified-collections"),
        .product(name: "Dependencies", package: "swift-dependencies"),
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
        .product(name: "ConcurrencyExtras", package: "swift-concurrency-extras"),
      ]
    ),
    // JSON values and their codec, JSON Pointer, JSON Patch, JSON Schema: pure data, no I/O.
    .target(name: "ArborJSON"),
    // JSON-RPC 2.0 messages, NDJSON framing, error codes, the OpenRPC document: pure data,
    // no I/O, shared by the daemon and its clients.
    .target(name: "ArborRPC", dependencies: ["ArborJSON"]),
    // Helpers for testing models: seeded random runs, restore round trips, waits with
    // deadlines (reported through IssueReporting).
    .target(
      name: "ArborTesting",
      dependencies: [
        "Arbor",
        "ArborJSON",
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
      ]
    ),
    .executableTarget(
      name: "arbor-benchmarks",
      dependencies: ["Arbor"]
    ),
    // Examples are real programs: a model library plus an executable.
    .target(
      name: "CounterFact",
      dependencies: [
        "Arbor",
        .product(name: "Dependencies", package: "swift-dependencies"),
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
      ],
      path: "Examples/CounterFact/Sources/CounterFact"
    ),
    .executableTarget(
      name: "counterfact-tour",
      dependencies: ["CounterFact", "Arbor", "ArborJSON"],
      path: "Examples/CounterFact/Sources/counterfact-tour"
    ),
    .testTarget(
      name: "CounterFactTests",
      dependencies: [
        "CounterFact",
        "Arbor",
        "ArborJSON",
        "ArborTesting",
        .product(name: "Dependencies", package: "swift-dependencies"),
        .product(name: "IssueReportingTestSupport", package: "xctest-dynamic-overlay"),
      ],
      path: "Examples/CounterFact/Tests/CounterFactTests"
    ),
    .testTarget(
      name: "ArborTests",
      dependencies: [
        "Arbor",
        "ArborJSON",
        "ArborTesting",
        .product(name: "ConcurrencyExtras", package: "swift-concurrency-extras"),
        .product(name: "Dependencies", package: "swift-dependencies"),
        .product(name: "IssueReportingTestSupport", package: "xctest-dynamic-overlay"),
      ]
    ),
    .testTarget(
      name: "ArborJSONTests",
      dependencies: ["ArborJSON"]
    ),
    .testTarget(
      name: "ArborRPCTests",
      dependencies: ["ArborRPC", "ArborJSON"]
    ),
    // Macro expansion tests reach only the macro target and swift-syntax's test support,
    // so that SwiftPM does not build a host copy of the runtime's dependencies.
    .testTarget(
      name: "ArborMacrosTests",
      dependencies: [
        "ArborMacros",
        .product(name: "MacroTesting", package: "swift-macro-testing"),
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)
