#if canImport(Glibc)
  import Glibc
#endif

/// The local time an update was received, in RFC 3339 with milliseconds and the local
/// offset: `2026-11-25T10:15:00.123+01:00`. For `--timestamps`.
///
/// ```swift
/// let time = ReceiveTime.now()   // "2026-11-25T10:15:00.123+01:00"
/// ```
enum ReceiveTime {
  /// The time now, on the system's clock, in the local time zone.
  static func now() -> String {
    var clock = timespec()
    clock_gettime(CLOCK_REALTIME, &clock)
    return format(seconds: clock.tv_sec, milliseconds: Int(clock.tv_nsec / 1_000_000))
  }

  /// `seconds` since 1970 and `milliseconds` past them, as local RFC 3339 text.
  static func format(seconds: time_t, milliseconds: Int) -> String {
    var seconds = seconds
    var local = tm()
    localtime_r(&seconds, &local)
    let offset = Int(local.tm_gmtoff) / 60
    let sign = offset < 0 ? "-" : "+"
    func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    func three(_ value: Int) -> String { String(repeating: "0", count: 3 - String(value).count) + String(value) }
    let date = "\(Int(local.tm_year) + 1900)-\(two(Int(local.tm_mon) + 1))-\(two(Int(local.tm_mday)))"
    let clock = "\(two(Int(local.tm_hour))):\(two(Int(local.tm_min))):\(two(Int(local.tm_sec))).\(three(milliseconds))"
    return "\(date)T\(clock)\(sign)\(two(abs(offset) / 60)):\(two(abs(offset) % 60))"
  }
}
