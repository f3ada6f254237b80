import ArborRPC
import ArborClient
import ArborJSON
import Foundation

/// Completions that ask the running daemon (argument-parser's custom completions): paths
/// in the state, and the intents of the model at the target being typed.
///
/// ```sh
/// arborctl call /counters/0/counter <TAB>   # incrementTapped decrementTapped factButtonTapped alertDismissed
/// ```
///
/// A completion never fails: with no daemon to ask, it offers nothing.
enum Completions {
  /// Paths one level below what is typed: `/counters/0/c<TAB>` offers `/counters/0/counter`.
  @Sendable static func paths(_ arguments: [String], _ index: Int, _ prefix: String) async -> [String] {
    await children(of: prefix, arguments: arguments, containersOnly: false)
  }

  /// Like ``paths(_:_:_:)``, only the paths that can lead to a model (objects and collections).
  @Sendable static func targets(_ arguments: [String], _ index: Int, _ prefix: String) async -> [String] {
    await children(of: prefix, arguments: arguments, containersOnly: true)
  }

  /// The intents of the model at the argument before the one being completed.
  @Sendable static func intents(_ arguments: [String], _ index: Int, _ prefix: String) async -> [String] {
    guard index > 0, index - 1 < arguments.count, let document = await discover(arguments) else { return [] }
    let target = arguments[index - 1]
    guard let type = try? ModelTypeLookup(document: document).type(at: target == "/" ? "" : target) else { return [] }
    let names = document["components"]?["x-intents"]?[type]?.objectValue?.keys.sorted() ?? []
    return names.filter { $0.hasPrefix(prefix) }
  }

  /// Every intent name of every model type.
  @Sendable static func allIntents(_ arguments: [String], _ index: Int, _ prefix: String) async -> [String] {
    guard let document = await discover(arguments) else { return [] }
    let intents = document["components"]?["x-intents"]?.objectValue ?? [:]
    return Set(intents.values.flatMap { $0.objectValue.map { Array($0.keys) } ?? [] }).filter { $0.hasPrefix(prefix) }.sorted()
  }

  private static func children(of prefix: String, arguments: [String], containersOnly: Bool) async -> [String] {
    let parent = prefix.lastIndex(of: "/").map { String(prefix[..<$0]) } ?? ""
    guard let value = await call(arguments, .stateGet, ["path": .string(parent)])?["value"] else { return [] }
    var offered: [String] = parent.isEmpty && "/".hasPrefix(prefix) ? ["/"] : []
    let members: [(String, JSONValue)]
    switch value {
    case .object(let object): members = object.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    case .array(let array): members = array.enumerated().map { (String($0.offset), $0.element) }
    default: members = []
    }
    for (key, member) in members {
      if containersOnly, member.objectValue == nil, member.arrayValue == nil { continue }
      let path = parent + JSONPointer(tokens: [key]).description
      if path.hasPrefix(prefix) { offered.append(path) }
    }
    return offered
  }

  private static func discover(_ arguments: [String]) async -> JSONValue? {
    await call(arguments, .discover, nil)
  }

  /// One call to the daemon named by `--socket` among the words typed, `$ARBOR_SOCKET`, or
  /// the default socket; nil on any failure or after a second.
  private static func call(_ arguments: [String], _ method: ArborMethod, _ params: JSONValue?) async -> JSONValue? {
    let given = arguments.firstIndex(of: "--socket").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
    guard let path = try? ConnectionOptions.socketPath(given: given) else { return nil }
    return await withTaskGroup(of: JSONValue?.self) { group in
      group.addTask { try? await ArborClient(socketPath: path).call(method, params) }
      group.addTask {
        try? await Task.sleep(for: .seconds(1))
        return nil
      }
      defer { group.cancelAll() }
      return await group.next() ?? nil
    }
  }
}
