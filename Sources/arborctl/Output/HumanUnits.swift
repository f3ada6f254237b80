/// Figures as people read them on a terminal: a duration in its two largest units, a size
/// in KiB, MiB or GiB, a count with its noun made plural only when it is. JSON output keeps
/// the raw numbers.
///
/// ```swift
/// HumanUnits.duration(seconds: 271.4)   // "4m31s"
/// HumanUnits.bytes(314_572)              // "307 KiB"
/// HumanUnits.count(1, "connection")      // "1 connection"
/// ```
enum HumanUnits {
  static func duration(seconds: Double) -> String {
    guard seconds.isFinite, seconds >= 0 else { return "\(seconds) s" }
    if seconds < 10 { return String(format: "%.1fs", seconds) }
    var rest = Int(seconds.rounded(.down))
    let days = rest / 86_400
    rest %= 86_400
    let hours = rest / 3_600
    rest %= 3_600
    let minutes = rest / 60
    let secs = rest % 60
    if days > 0 { return "\(days)d\(hours)h" }
    if hours > 0 { return "\(hours)h\(minutes)m" }
    if minutes > 0 { return "\(minutes)m\(secs)s" }
    return "\(secs)s"
  }

  static func bytes(_ count: Double) -> String {
    guard count.isFinite, count >= 0 else { return "\(count) B" }
    if count < 1024 { return "\(Int(count)) B" }
    let units = ["KiB", "MiB", "GiB", "TiB"]
    var value = count / 1024
    var unit = 0
    while value >= 1024 && unit < units.count - 1 {
      value /= 1024
      unit += 1
    }
    return value < 10 ? String(format: "%.1f %@", value, units[unit]) : "\(Int(value.rounded())) \(units[unit])"
  }

  static func count(_ value: Int, _ noun: String, plural: String? = nil) -> String {
    "\(value) \(value == 1 ? noun : plural ?? noun + "s")"
  }
}
