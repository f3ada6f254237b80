import Foundation
import ProcessSlots
import Testing

/// A model whose state could not be restored does not compile: these tests type-check
/// small files against the built `Arbor` module and macro plugin with `swiftc`, and read
/// the errors the user would see.
@Suite(.startsProcesses) struct RestorabilityDiagnosticsTests {
  /// Type-checks `source` (which imports Arbor); returns the compiler's errors.
  func errors(in source: String) async throws -> [String] {
    // The test bundle lives in the build directory, next to the modules and the plugin.
    let build = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path
    let modules = "\(build)/Modules"
    let plugin = "\(build)/ArborMacros-tool"
    guard FileManager.default.fileExists(atPath: "\(modules)/Arbor.swiftmodule"), FileManager.default.fileExists(atPath: plugin) else {
      throw Program.Failure(description: "no Arbor module or macro plugin next to the test bundle in \(build)")
    }
    var arguments = ["-typecheck", "-swift-version", "6", "-I", modules, "-load-plugin-executable", "\(plugin)#ArborMacros"]
    // C modules of dependencies (OpenCombine's helpers) are found through their module maps.
    let builds = try FileManager.default.contentsOfDirectory(atPath: build).filter { $0.hasSuffix(".build") && !$0.contains("-tool") }
    for directory in builds where FileManager.default.fileExists(atPath: "\(build)/\(directory)/module.modulemap") {
      arguments += ["-Xcc", "-fmodule-map-file=\(build)/\(directory)/module.modulemap"]
    }
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("arbor-diagnostics-\(UUID().uuidString).swift")
    try source.write(to: file, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: file) }
    // Type-checking against the built modules takes seconds, more on a busy machine.
    let result = try await Program.run(try Program.find("swiftc"), arguments + [file.path], stdin: Data(), seconds: 300)
    let lines = (result.stdout + result.stderr).split(separator: "\n").map(String.init)
    // Each error once: not again in the annotated source the compiler prints under it.
    return lines.filter { $0.contains("error:") && !$0.contains("`- error:") && !$0.contains("|- error:") }
  }

  @Test func aLetThatIsNotCodableAndHasNoValueIsRejected() async throws {
    let errors = try await errors(
      in: """
        import Arbor
        final class Connection: Sendable {}
        @Model struct Device {
          var name = "d"
          let connection: Connection
        }
        """)
    #expect(errors.count == 1)
    #expect(errors.first?.contains("a model's state must be Codable: this 'let' is not, and has no default value to restore") == true, "\(errors)")
  }

  @Test func aPropertyThatIsNotCodableNeedsADefault() async throws {
    let rejected = try await errors(
      in: """
        import Arbor
        struct Handle: Sendable, Equatable {}
        @Model struct Device {
          var handle: Handle
        }
        """)
    #expect(rejected.count == 1)
    #expect(rejected.first?.contains("this property is not, and has no default value to restore") == true, "\(rejected)")

    let accepted = try await errors(
      in: """
        import Arbor
        struct Handle: Sendable, Equatable {}
        @Model struct Device {
          var handle = Handle()
          var onTap: @Sendable () -> Void = {}
          @ModelIgnored var cache: [String: Handle]? = nil
          var name: String
        }
        """)
    #expect(accepted == [])
  }

  /// The guide's closures, in every shape, compile: they are not state. Neither is a
  /// `@ModelIgnored let`, the way to keep a closure behind a type alias out of the state
  /// (with an initializer of its own, which can say `@escaping`).
  @Test func closureLetsOfEveryShapeCompile() async throws {
    let errors = try await errors(
      in: """
        import Arbor
        typealias Callback = @Sendable () -> Void
        @Model struct RecordMeetingModel {
          let onSave: @Sendable (String) -> Void
          let onDiscard: @Sendable () -> Void
          let onFact: @Sendable (Int, String) -> Void
          let onFinish: @Sendable (String) async -> Void
          let onFail: (@Sendable (any Error) async throws -> Void)?
          let onMain: @MainActor () -> Void
          @ModelIgnored var onStop: @Sendable () -> Void = {}
          var transcript = ""
          func saveTapped() { onSave(transcript) }
        }
        let meeting = RecordMeetingModel(
          onSave: { _ in }, onDiscard: {}, onFact: { _, _ in }, onFinish: { _ in }, onFail: nil, onMain: {})
        @Model struct Row {
          @ModelIgnored let onTap: Callback
          init(onTap: @escaping Callback) { self.onTap = onTap }
        }
        """)
    #expect(errors == [])
  }

  /// A model is Sendable: a closure that is not is reported on its own line, in words
  /// that say what to write.
  @Test func aClosureThatIsNotSendableIsReportedOnItsLine() async throws {
    let errors = try await errors(
      in: """
        import Arbor
        @Model struct CounterModel {
          var count = 0
          let onFact: (Int, String) -> Void
        }
        """)
    // Swift's own error about the same property comes with it, on the same line.
    #expect(errors.count == 2, "\(errors)")
    let ours = errors.filter { $0.contains("a model is Sendable, so the closure in 'onFact' must be too: declare it '@Sendable (Int, String) -> Void'") }
    #expect(ours.count == 1, "\(errors)")
    #expect(ours.first?.contains(".swift:4:") == true, "\(errors)")
  }

  /// A closure behind a type alias looks like any other type to the macro: the error says
  /// that `@ModelIgnored` keeps it out of the state. (The memberwise initializer cannot
  /// mark such a parameter `@escaping` either, which Swift reports as well.)
  @Test func aClosureBehindATypeAliasIsToldAboutModelIgnored() async throws {
    let errors = try await errors(
      in: """
        import Arbor
        typealias Callback = @Sendable () -> Void
        @Model struct Row {
          let onTap: Callback
        }
        """)
    #expect(
      errors.contains { $0.contains("this 'let' is not, and has no default value to restore; make its type Codable, give it a value, or mark it @ModelIgnored to keep it out of the state (its model then cannot be restored)") },
      "\(errors)")
  }

  /// An ignored `var` can have a default, so one without a default (or an optional type) is
  /// reported on its line.
  @Test func anIgnoredVarWithoutADefaultIsReportedOnItsLine() async throws {
    let errors = try await errors(
      in: """
        import Arbor
        @Model struct Recorder {
          @ModelIgnored var onSave: @Sendable (String) -> Void
        }
        """)
    #expect(errors.count == 1)
    #expect(errors.first?.contains(".swift:3:") == true, "\(errors)")
    #expect(errors.first?.contains("a restored model needs a default value for it") == true, "\(errors)")
  }

  @Test func intentParametersAndResultsMustBeCodable() async throws {
    let errors = try await errors(
      in: """
        import Arbor
        struct Handle: Sendable {}
        @Model struct Device {
          var count = 0
          @Intent func attach(_ handle: Handle) {}
          @Intent func handle() -> Handle { Handle() }
        }
        """)
    // Each is reported where the dispatch table names the type and where it decodes or
    // encodes the value; every error is one of these two messages.
    #expect(!errors.isEmpty && errors.allSatisfy { $0.contains("of an @Intent must be Codable") }, "\(errors)")
    #expect(errors.contains { $0.contains("the parameters of an @Intent must be Codable") })
    #expect(errors.contains { $0.contains("the result of an @Intent must be Codable (or Void)") })
  }
}
