/// The connection and output options may come before the command, as in `kubectl
/// --context`, `etcdctl --endpoints` and `redis-cli -s`: `arborctl --socket S status` is
/// read as `arborctl status --socket S`, `arborctl -q --output yaml watch /` as `arborctl
/// watch / -q --output yaml`.
///
/// ```swift
/// LeadingOptions.moved(["--socket", "/run/a.sock", "get", "/"])   // ["get", "/", "--socket", "/run/a.sock"]
/// ```
enum LeadingOptions {
  /// Options that take a value, and flags, accepted before the command.
  static let valued: Set<String> = ["--socket", "--host", "--timeout", "--color", "--output", "-o"]
  static let flags: Set<String> = ["--json", "--timestamps", "--quiet", "-q"]

  /// `arguments` with the connection options that come before the command moved after it
  /// (before a `--`, if there is one); unchanged when there are none.
  static func moved(_ arguments: [String]) -> [String] {
    var leading: [String] = []
    var index = 0
    while index < arguments.count {
      let argument = arguments[index]
      let name = String(argument.prefix { $0 != "=" })
      if valued.contains(name) {
        if argument.contains("=") {
          leading.append(argument)
          index += 1
        } else {
          guard index + 1 < arguments.count else { break }
          leading += [argument, arguments[index + 1]]
          index += 2
        }
      } else if flags.contains(argument) {
        leading.append(argument)
        index += 1
      } else {
        break
      }
    }
    guard !leading.isEmpty, index < arguments.count else { return arguments }
    var rest = Array(arguments[index...])
    let end = rest.firstIndex(of: "--") ?? rest.endIndex
    rest.insert(contentsOf: leading, at: end)
    return rest
  }
}
