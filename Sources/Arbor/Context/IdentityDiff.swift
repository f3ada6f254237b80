/// The longest common subsequence of two sequences of identities, by Myers' O((n+m)·D)
/// algorithm, for edits of arrays of models: what is not kept is removed or inserted.
///
/// Gives up (returns nil) when more than `limit` elements differ, so that a wholesale
/// rewrite costs no more than removing and inserting everything.
enum IdentityDiff {
  /// The pairs `(old index, new index)` of elements kept, in increasing order; nil when
  /// the edit distance is over `limit`.
  static func kept(_ old: [ObjectIdentifier], _ new: [ObjectIdentifier], limit: Int = 256) -> [(Int, Int)]? {
    let n = old.count, m = new.count
    let bound = min(n + m, limit)
    let offset = bound + 1
    var v = [Int](repeating: 0, count: 2 * bound + 3)
    var trace: [[Int]] = []
    for d in 0...bound {
      trace.append(v)
      for k in stride(from: -d, through: d, by: 2) {
        var x = (k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1])) ? v[offset + k + 1] : v[offset + k - 1] + 1
        var y = x - k
        while x < n, y < m, old[x] == new[y] {
          x += 1
          y += 1
        }
        v[offset + k] = x
        if x >= n && y >= m { return backtrack(trace, d: d, n: n, m: m, offset: offset) }
      }
    }
    return nil
  }

  private static func backtrack(_ trace: [[Int]], d: Int, n: Int, m: Int, offset: Int) -> [(Int, Int)] {
    var kept: [(Int, Int)] = []
    var x = n, y = m
    for step in stride(from: d, to: 0, by: -1) {
      let v = trace[step]
      let k = x - y
      let previousK = (k == -step || (k != step && v[offset + k - 1] < v[offset + k + 1])) ? k + 1 : k - 1
      let previousX = v[offset + previousK]
      let previousY = previousX - previousK
      while x > previousX, y > previousY {
        x -= 1
        y -= 1
        kept.append((x, y))
      }
      x = previousX
      y = previousY
    }
    while x > 0, y > 0 {
      x -= 1
      y -= 1
      kept.append((x, y))
    }
    return kept.reversed()
  }
}
