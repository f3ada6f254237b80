// swift-tools-version: 6.1
import PackageDescription

// A package of your own that hosts a tree of models as a daemon: the Thermostat model,
// thermostatd (the daemon), and their tests. README.md builds it step by step.
let package = Package(
  name: "Thermostat",
  dependencies: [
    // Inside Arbor's repository the template uses the checkout it sits in, so that every
    // change to Arbor is built against it. In a package of your own, write instead:
    //   .package(url: "https://example.com/your-mirror/arbor.git", from: "0.1.0", traits: []),
    // with the URL of Arbor's repository and the version you want (README.md, step 2).
    // `traits: []` builds a daemon with the socket and the SQLite store only; name
    // "HTTP" for the inspector and /metrics (--http), "PostgreSQL" for --store postgres://
    // (each adds what it needs to the build: Hummingbird; postgres-nio and BoringSSL).
    .package(name: "arbor", path: "../..", traits: []),
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
  ],
  targets: [
    // The models: no I/O, testable in process.
    .target(
      name: "Thermostat",
      dependencies: [.product(name: "Arbor", package: "arbor")]
    ),
    // The daemon: the models served over JSON-RPC 2.0 on a Unix socket.
    .executableTarget(
      name: "thermostatd",
      dependencies: [
        "Thermostat",
        .product(name: "ArborDaemon", package: "arbor"),
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    .testTarget(
      name: "ThermostatTests",
      dependencies: [
        "Thermostat",
        .product(name: "Arbor", package: "arbor"),
        .product(name: "ArborClient", package: "arbor"),
        .product(name: "ArborTesting", package: "arbor"),
        .product(name: "ArborDaemonTesting", package: "arbor"),
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)
