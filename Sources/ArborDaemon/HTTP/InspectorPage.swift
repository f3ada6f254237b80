/// The inspector's single page, served at `/` by the HTTP listener: hand-written HTML, CSS
/// and script, with nothing fetched at run time.
///
/// It speaks the daemon's JSON-RPC over the WebSocket at `/rpc`: a state watch of the root
/// kept as a live copy (patched in place, drawn lazily), the journal's revisions with time
/// travel through `state.at`, the events, and forms for the selected model's intents built
/// from `rpc.discover`. Elements tests rely on: `#conn`, `#mode`, `#path-filter`,
/// `#timeline-slider`, `#step-back`, `#step-forward`, `#go-live`, `#token`, `#connect`,
/// `[data-path] > .row > .value`, `form.intent[data-intent]` and its `.intent-result`.
///
/// Its parts are files of their own in `HTTP/Inspector/` (the markup, the style sheet and
/// the script's pieces, in the order below), compiled into the binary as bytes
/// (SwiftPM's `embedInCode`) and put together once:
///
/// ```swift
/// response.body = .init(byteBuffer: ByteBuffer(string: InspectorPage.html))
/// ```
enum InspectorPage {
  /// The page: its markup, style sheet and script, put together once.
  static let html = parts.map(text).joined(separator: "\n")

  /// The parts in page order: from the doctype to the style sheet, the style sheet, the
  /// header, bar and panels, the script's pieces (helpers, the connection, the tree, the
  /// timeline, the events, the intents, the start), and the end of the page.
  static let parts: [[UInt8]] = [
    PackageResources.head_html, PackageResources.style_css, PackageResources.body_html,
    PackageResources.base_js, PackageResources.connection_js, PackageResources.tree_js, PackageResources.timeline_js,
    PackageResources.events_js, PackageResources.intents_js, PackageResources.start_js,
    PackageResources.end_html,
  ]

  /// A part's text, without the newline that ends its file.
  private static func text(_ bytes: [UInt8]) -> String {
    String(decoding: bytes.last == UInt8(ascii: "\n") ? bytes.dropLast() : bytes[...], as: UTF8.self)
  }
}
