import Arbor
import Foundation

extension InspectorPage {
  /// The page's `Content-Security-Policy`: its one script may run, by its SHA-256, and
  /// nothing else — no script from elsewhere, and no inline event handler even if some
  /// text ever reached the page as markup (the page writes every value as text). It
  /// connects only to its own origin, loads nothing, and may be framed by no one.
  ///
  /// ```swift
  /// response.headers[.contentSecurityPolicy] = InspectorPage.contentSecurityPolicy
  /// ```
  static let contentSecurityPolicy: String =
    "default-src 'none'; script-src '\(scriptHash)'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

  /// `sha256-…` of the text between the page's `<script>` and `</script>`, as a browser
  /// hashes it.
  static let scriptHash: String = {
    guard let open = html.range(of: "<script>"), let close = html.range(of: "</script>", range: open.upperBound..<html.endIndex) else {
      return "none"
    }
    let digest = SHA256Digest.hash(Array(html[open.upperBound..<close.lowerBound].utf8))
    return "sha256-" + Data(digest.bytes).base64EncodedString()
  }()
}
