// swift-tools-version: 6.1
import CompilerPluginSupport
import PackageDescription

// What the macros' implementation imports: the compiler plugin (ArborMacros) and the
// plain library its expansion tests use (ArborMacroExpansions) build the same sources.
let macroImplementationDependencies: [Target.Dependency] = [
  .product(name: "SwiftSyntax", package: "swift-syntax"),
  .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
  .product(name: "SwiftDiagnostics", package: "swift-syntax"),
  .product(name: "SwiftSyntaxBuilder", package: "swift-syntax"),
]

let package = Package(
  name: "Arbor",
  platforms: [.macOS(.v15)],
  products: [
    .library(name: "Arbor", targets: ["Arbor"]),
    .library(name: "ArborJSON", targets: ["ArborJSON"]),
    .library(name: "ArborRPC", targets: ["ArborRPC"]),
    .library(name: "ArborTesting", targets: ["ArborTesting"]),
    .library(name: "ArborDaemonTesting", targets: ["ArborDaemonTesting"]),
    .library(name: "ArborDaemon", targets: ["ArborDaemon"]),
    .library(name: "ArborClient", targets: ["ArborClient"]),
    .library(name: "ArborStorage", targets: ["ArborStorage"]),
    .library(name: "ArborStore", targets: ["ArborStore"]),
    .library(name: "ArborPostgres", targets: ["ArborPostgres"]),
    .library(name: "ArborSystemd", targets: ["ArborSystemd"]),
    .executable(name: "arbor-benchmarks", targets: ["arbor-benchmarks"]),
    .executable(name: "counterfactd", targets: ["counterfactd"]),
    .executable(name: "arborctl", targets: ["arborctl"]),
    .executable(name: "counterfact-tour", targets: ["counterfact-tour"]),
    .executable(name: "todosd", targets: ["todosd"]),
  ],
  // What a daemon may leave out of its build (Docs/Architecture.md, "Optional parts").
  // This repository's daemons, tests and tools use both; a package of your own names the
  // ones it wants where it depends on Arbor: `traits: []` builds neither (the template's
  // choice), `traits: ["HTTP"]` adds the inspector.
  traits: [
    .trait(
      name: "PostgreSQL",
      description: "--store postgres://…: the state in PostgreSQL, standbys and their leader (postgres-nio, swift-nio-ssl, BoringSSL)."),
    .trait(
      name: "HTTP",
      description: "--http: the inspector page, its WebSocket, /metrics and health checks (Hummingbird, its WebSocket, HTTP types)."),
    .default(enabledTraits: ["PostgreSQL", "HTTP"]),
  ],
  dependencies: [
    .package(url: "https://github.com/swiftlang/swift-syntax", exact: "603.0.1"),
    .package(url: "https://github.com/pointfreeco/swift-macro-testing", from: "0.7.0"),
    .package(url: "https://github.com/pointfreeco/swift-identified-collections", from: "1.1.1"),
    .package(url: "https://github.com/pointfreeco/swift-dependencies", from: "1.17.1"),
    .package(url: "https://github.com/pointfreeco/xctest-dynamic-overlay", from: "1.13.1"),
    .package(url: "https://github.com/pointfreeco/swift-concurrency-extras", from: "1.4.3"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.2"),
    .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
    .package(url: "https://github.com/pointfreeco/swift-custom-dump", from: "1.7.3"),
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
    .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
    .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
  ],
  targets: [
    // The compiler plugin behind @Model and @ModelContainer.
    .macro(
      name: "ArborMacros",
      dependencies: macroImplementationDependencies + [.product(name: "SwiftCompilerPlugin", package: "swift-syntax")]
    ),
    // The model runtime: no networking, no persistence. It uses ArborJSON's values
    // (pure data) to write snapshots and change sets as JSON Patch, and re-exports
    // ArborRecords, the values it writes for a store.
    .target(
      name: "Arbor",
      dependencies: [
        "ArborLocking",
        "ArborMacros",
        "ArborJSON",
        "ArborRecords",
        .product(name: "IdentifiedCollections", package: "swift-identified-collections"),
        .product(name: "Dependencies", package: "swift-dependencies"),
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
        .product(name: "ConcurrencyExtras", package: "swift-concurrency-extras"),
        .product(name: "CustomDump", package: "swift-custom-dump"),
      ]
    ),
    // JSON values and their codec, JSON Pointer, JSON Patch, JSON Schema: pure data, no I/O.
    .target(name: "ArborJSON"),
    // What the runtime hands a store and takes back, as values: the snapshot record and its
    // errors, the undo history and its steps, model ids. Below the runtime, so that the
    // storage modules keep them without linking it (no macros, no swift-dependencies).
    .target(name: "ArborRecords", dependencies: ["ArborJSON"]),
    // The one lock every module uses (a pthread mutex ThreadSanitizer can see).
    .target(name: "ArborLocking"),
    // JSON-RPC 2.0 messages, NDJSON framing, error codes, the OpenRPC document: pure data,
    // no I/O, shared by the daemon and its clients.
    .target(name: "ArborRPC", dependencies: ["ArborJSON"]),
    // Helpers for testing models: seeded random runs, restore round trips, waits with
    // deadlines (reported through IssueReporting).
    .target(
      name: "ArborTesting",
      dependencies: [
        "ArborLocking",
        "Arbor",
        "ArborJSON",
        .product(name: "CustomDump", package: "swift-custom-dump"),
        .product(name: "Dependencies", package: "swift-dependencies"),
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
        // What IssueReporting looks up at run time to record a failure with Swift Testing
        // or XCTest: linked here, so that every test target using ArborTesting fails when
        // an assertion does (without it, a failure only prints a warning).
        .product(name: "IssueReportingTestSupport", package: "xctest-dynamic-overlay"),
      ]
    ),
    // Hosts one tree: JSON-RPC 2.0 over a Unix socket, watches, roles, snapshots.
    .target(
      name: "ArborDaemon",
      dependencies: [
        "ArborLocking",
        // The store as the daemon sees it; the daemon never casts it to a backend.
        "ArborStorage",
        // The embedded default backend (SQLite), and PostgreSQL when the trait asks for it:
        // named only where the daemon opens its store (Daemon/ArborDaemon.swift).
        "ArborStore",
        .target(name: "ArborPostgres", condition: .when(traits: ["PostgreSQL"])),
        "ArborSystemd",
        "Arbor",
        "ArborJSON",
        "ArborRPC",
        // An upgrade starts the new process with its own descriptors only (ChildDescriptors).
        "ArborClient",
        // ConditionLock, for the memory trim's thread (a condition, not a lock of state).
        .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "Dependencies", package: "swift-dependencies"),
        // The opt-in HTTP listener (`--http`): the inspector, its WebSocket, /metrics, health.
        .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["HTTP"])),
        .product(name: "HummingbirdCore", package: "hummingbird", condition: .when(traits: ["HTTP"])),
        .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: ["HTTP"])),
        // The WebSocket frames' own check of client masking (MaskedFramesOnly).
        .product(name: "NIOWebSocket", package: "swift-nio", condition: .when(traits: ["HTTP"])),
        .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket", condition: .when(traits: ["HTTP"])),
        .product(name: "Metrics", package: "swift-metrics"),
        .product(name: "Prometheus", package: "swift-prometheus"),
      ],
      // The inspector's page, files of their own (checked by `node --check`, make
      // inspector-check), compiled into the binary so that it stays one file.
      resources: [
        .embedInCode("HTTP/Inspector/head.html"),
        .embedInCode("HTTP/Inspector/style.css"),
        .embedInCode("HTTP/Inspector/body.html"),
        .embedInCode("HTTP/Inspector/base.js"),
        .embedInCode("HTTP/Inspector/connection.js"),
        .embedInCode("HTTP/Inspector/tree.js"),
        .embedInCode("HTTP/Inspector/timeline.js"),
        .embedInCode("HTTP/Inspector/events.js"),
        .embedInCode("HTTP/Inspector/intents.js"),
        .embedInCode("HTTP/Inspector/start.js"),
        .embedInCode("HTTP/Inspector/end.html"),
      ]
    ),
    // A model's tests run again through a daemon's socket: the daemon hosted in-process,
    // intents called and state watched with ArborClient, asserted as ArborTesting does.
    .target(
      name: "ArborDaemonTesting",
      dependencies: [
        "ArborLocking",
        "Arbor", "ArborClient", "ArborDaemon", "ArborJSON", "ArborTesting",
        .product(name: "Dependencies", package: "swift-dependencies"),
      ]
    ),
    // An async client of the daemon's socket, shared by arborctl, tests and benchmarks.
    .target(
      name: "ArborClient",
      dependencies: [
        "ArborLocking",
        "ArborJSON",
        "ArborRPC",
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
      ]
    ),
    // libsystemd (Debian's libsystemd-dev), for ArborSystemd only.
    .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
    // sd_notify, socket activation and the journal, with a Swift face.
    .target(
      name: "ArborSystemd",
      dependencies: ["CSystemd", .product(name: "Logging", package: "swift-log")]
    ),
    // The store as the daemon sees it, whatever keeps it (what NIOCore is to NIOPosix):
    // the StateStore protocol and what a backend can do besides (lead, relay events,
    // forward intents, warn at recovery), journal entries and rows, the checks that read
    // rows back, the group-commit writer. No database code: the backends are the modules
    // beside it, and a daemon links only those it opens. What it keeps of the runtime's
    // are ArborRecords' values: it does not import the runtime.
    .target(
      name: "ArborStorage",
      dependencies: ["ArborLocking", "ArborRecords", "ArborJSON"]
    ),
    // The durable journal and snapshots on SQLite through GRDB: the embedded default.
    // It re-exports ArborStorage, so that `import ArborStore` is all a program needs.
    .target(
      name: "ArborStore",
      dependencies: [
        "ArborLocking",
        "ArborStorage",
        "ArborRecords", "ArborJSON",
        .product(name: "GRDB", package: "GRDB.swift"),
      ]
    ),
    // The same store on PostgreSQL (postgres-nio), for daemons on several machines: it
    // leads, relays events and forwards intents (ArborStorage's capabilities). Beside the
    // SQLite store, not on it: a PostgreSQL daemon's store code links no GRDB.
    .target(
      name: "ArborPostgres",
      dependencies: [
        "ArborLocking",
        "ArborRPC",
        "ArborStorage",
        "ArborRecords", "ArborJSON",
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    .executableTarget(
      name: "arbor-benchmarks",
      dependencies: [
        "ArborLocking", "Arbor", "ArborClient", "ArborDaemon", "ArborJSON", "ArborLoad", "ArborStore",
        .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
      ]
    ),
    // <sys/epoll.h> for the load generator.
    .target(name: "CEpoll"),
    // The load generator of arbor-benchmarks and `arborctl bench`, built like
    // redis-benchmark: one thread, non-blocking sockets, epoll.
    .target(name: "ArborLoad", dependencies: ["CEpoll"]),
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
    .executableTarget(
      name: "counterfactd",
      dependencies: [
        "CounterFact",
        "ArborDaemon",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      path: "Examples/CounterFact/Sources/counterfactd"
    ),
    .testTarget(
      name: "CounterFactTests",
      dependencies: [
        "CounterFact",
        "ArborDaemonTesting",
        .product(name: "ConcurrencyExtras", package: "swift-concurrency-extras"),
        "Arbor",
        "ArborJSON",
        "ArborTesting",
        .product(name: "Dependencies", package: "swift-dependencies"),
        .product(name: "IssueReportingTestSupport", package: "xctest-dynamic-overlay"),
      ],
      path: "Examples/CounterFact/Tests/CounterFactTests"
    ),
    // The second example: a todo list with undo, shared tags, memoized views, context,
    // preferences and a debounced dirty flag, hosted by todosd.
    .target(
      name: "Todos",
      dependencies: [
        "Arbor",
        .product(name: "Dependencies", package: "swift-dependencies"),
      ],
      path: "Examples/Todos/Sources/Todos"
    ),
    .executableTarget(
      name: "todosd",
      dependencies: [
        "Todos",
        "ArborDaemon",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      path: "Examples/Todos/Sources/todosd"
    ),
    .testTarget(
      name: "TodosTests",
      dependencies: [
        "Todos",
        "Arbor",
        "ArborClient",
        "ArborDaemonTesting",
        "ArborJSON",
        "ArborTesting",
        .product(name: "Dependencies", package: "swift-dependencies"),
      ],
      path: "Examples/Todos/Tests/TodosTests"
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
        "ProcessSlots",
        .product(name: "Subprocess", package: "swift-subprocess"),
        .product(name: "SystemPackage", package: "swift-system"),
      ]
    ),
    // End-to-end tests: they start the real counterfactd binary and talk over its socket.
    .testTarget(
      name: "ArborDaemonTests",
      dependencies: [
        "Arbor",
        "ArborDaemon",
        "ArborClient",
        "ArborLoad",
        "ArborStore",
        "CEpoll",
        "PostgresTestServer",
        "ProcessSlots",
        "StoreDoubles",
        "ArborStorage",
        .product(name: "GRDB", package: "GRDB.swift"),
        "ArborJSON",
        "ArborLocking",
        "ArborRPC",
        "ArborTesting",
        .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOEmbedded", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "Subprocess", package: "swift-subprocess"),
        .product(name: "SystemPackage", package: "swift-system"),
      ]
    ),
    // The command-line client.
    .executableTarget(
      name: "arborctl",
      dependencies: [
        "ArborLocking",
        "ArborClient", "ArborJSON", "ArborLoad", "ArborRPC",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    // A daemon whose model misbehaves on purpose (a wedged tree), for the daemon's tests.
    .executableTarget(
      name: "arbor-fixture-daemon",
      dependencies: [
        "Arbor", "ArborDaemon", "ArborSystemd",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "Tests/Fixtures/arbor-fixture-daemon"
    ),
    .testTarget(
      name: "ArborSystemdTests",
      dependencies: ["ArborSystemd", "ArborTesting", .product(name: "Logging", package: "swift-log")]
    ),
    .testTarget(
      name: "ArborStorageTests",
      dependencies: ["ArborStorage", "ArborLocking", "Arbor", "ArborJSON", "ArborTesting", "StoreDoubles"]
    ),
    .testTarget(
      name: "ArborStoreTests",
      dependencies: ["ArborStore", "Arbor", "ArborJSON", "ArborTesting", .product(name: "GRDB", package: "GRDB.swift")]
    ),
    // The bound on tests that start processes, shared by every test target (the
    // `.startsProcesses` trait; Docs/Testing.md, "A fresh machine").
    .target(name: "ProcessSlots", dependencies: ["ArborLocking"], path: "Tests/ProcessSlots"),
    // Stores in memory for tests (`MemoryStore`, and `SharedMemoryStore`, which leads at once).
    .target(name: "StoreDoubles", dependencies: ["ArborStorage", "ArborRecords", "ArborLocking"], path: "Tests/StoreDoubles"),
    // A real PostgreSQL server for the tests, in a temporary directory.
    .target(
      name: "PostgresTestServer",
      dependencies: [
        "ProcessSlots",
        .product(name: "Subprocess", package: "swift-subprocess"),
        .product(name: "SystemPackage", package: "swift-system"),
      ],
      path: "Tests/PostgresTestServer"
    ),
    // The PostgreSQL store against a real server started in a temporary directory.
    .testTarget(
      name: "ArborPostgresTests",
      dependencies: [
        "ArborPostgres", "ArborLocking", "ArborRPC", "ArborStorage", "Arbor", "ArborJSON", "ArborTesting", "PostgresTestServer", "ProcessSlots",
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Logging", package: "swift-log"),
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
        "ArborMacroExpansions",
        .product(name: "MacroTesting", package: "swift-macro-testing"),
      ]
    ),
    // The macros' implementation as a plain library, for their expansion tests only: the
    // same sources as ArborMacros (Sources/ArborMacroExpansions is a link to it), without
    // the compiler plugin's entry point. A test target that depends on a `.macro` target
    // makes SwiftPM build the whole test product, and every library it reaches, a second
    // time for the host (`-tool`): twice NIO, GRDB, BoringSSL and the tests themselves
    // (Docs/Testing.md, "A fresh machine").
    .target(name: "ArborMacroExpansions", dependencies: macroImplementationDependencies, exclude: ["Plugin.swift"]),
  ],
  swiftLanguageModes: [.v6]
)
