/// The name someone probably meant: the closest of the names there are to one that is not,
/// for "did you mean" in error messages.
///
/// Close means an edit distance (insertions, deletions, substitutions and swaps of two
/// neighbours) of at most a third of the name's length, and at least 1; a name that only
/// differs in case is always close. Ties go to the earlier name.
///
/// ```swift
/// NameSuggestion.closest(to: "state.gett", among: ["state.get", "state.watch"])   // "state.get"
/// NameSuggestion.closest(to: "counter", among: ["counters", "isDirty"])          // "counters"
/// NameSuggestion.closest(to: "xyz", among: ["counters"])                        // nil
/// ```
public enum NameSuggestion {
  public static func closest(to name: String, among names: some Sequence<String>) -> String? {
    let typed = Array(name.unicodeScalars)
    let allowed = max(1, typed.count / 3)
    var best: (name: String, distance: Int)?
    for candidate in names where candidate != name {
      if candidate.lowercased() == name.lowercased() { return candidate }
      let other = Array(candidate.unicodeScalars)
      guard abs(other.count - typed.count) <= allowed else { continue }
      let distance = editDistance(typed, other, limit: allowed)
      if distance <= allowed, distance < (best?.distance ?? .max) { best = (candidate, distance) }
    }
    return best?.name
  }

  /// The optimal-string-alignment distance between `a` and `b`; any value above `limit`
  /// stands for "too far".
  static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar], limit: Int) -> Int {
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var before = [Int](repeating: 0, count: b.count + 1)
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
      current[0] = i
      var smallest = current[0]
      for j in 1...b.count {
        let cost = a[i - 1] == b[j - 1] ? 0 : 1
        var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
        if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { value = min(value, before[j - 2] + 1) }
        current[j] = value
        smallest = min(smallest, value)
      }
      if smallest > limit { return limit + 1 }
      (before, previous, current) = (previous, current, before)
    }
    return previous[b.count]
  }
}
