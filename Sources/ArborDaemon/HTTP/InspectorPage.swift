/// The inspector's single page, served at `/` by the HTTP listener: hand-written HTML, CSS
/// and script, with nothing fetched at run time.
///
/// It speaks the daemon's JSON-RPC over the WebSocket at `/rpc`: a state watch of the root
/// kept as a live copy (patched in place, drawn lazily), the journal's revisions with time
/// travel through `state.at`, the events, and forms for the selected model's intents built
/// from `rpc.discover`. Elements tests rely on: `#conn`, `#mode`, `#path-filter`,
/// `#timeline-slider`, `#step-back`, `#step-forward`, `#go-live`, `#token`, `#connect`,
/// `[data-path] > .row > .value`, `form.intent[data-intent]` and its `.intent-result`.
enum InspectorPage {
  /// The page: its markup, style sheet and script, put together once.
  static let html = [
    markupHead, style, markupBody,
    scriptBase, connectionScript, treeScript, timelineScript, eventsScript, intentsScript, startScript,
    markupEnd,
  ].joined(separator: "\n")

  /// From the doctype to the opening of the style sheet.
  static let markupHead = #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Arbor inspector</title>
    <style>
    """#

  /// From the end of the style sheet to the opening of the script: the header, the bar and the panels.
  static let markupBody = #"""
    </style>
    </head>
    <body>
    <header>
      <h1>Arbor inspector</h1>
      <span id="conn" class="connecting">connecting</span>
      <span class="stat">daemon <b id="daemon-name">-</b></span>
      <span class="stat">version <b id="daemon-version">-</b></span>
      <span class="stat">revision <b id="daemon-revision">-</b></span>
      <span class="stat">clients <b id="daemon-clients">-</b></span>
      <span class="token-box">
        <span id="token-status"></span>
        <input id="token" type="password" placeholder="token (operator)" autocomplete="off" spellcheck="false">
        <button id="connect" type="button">connect</button>
      </span>
    </header>
    <div class="bar">
      <label for="path-filter">path</label>
      <input id="path-filter" type="text" placeholder="JSON Pointer, e.g. /counters/0" spellcheck="false">
      <span id="mode">live</span>
      <button id="step-back" type="button" title="previous revision">&#9664;</button>
      <input id="timeline-slider" type="range" min="0" max="0" value="0" step="1" disabled>
      <button id="step-forward" type="button" title="next revision">&#9654;</button>
      <span id="slider-label"></span>
      <button id="go-live" type="button">go live</button>
    </div>
    <main>
      <div class="column">
        <section id="tree-section">
          <h2>Tree <span class="note" id="tree-note"></span></h2>
          <div class="scroll"><div id="tree"><div class="message">waiting for the state…</div></div></div>
        </section>
      </div>
      <div class="column">
        <section id="intents-section">
          <h2>Intents <span class="note" id="intents-target">select a node</span>
            <button id="undo" type="button" disabled>undo</button><button id="redo" type="button" disabled>redo</button></h2>
          <div class="scroll">
            <div id="intents-readonly">read-only: enter a token to call intents</div>
            <div id="intents"></div>
          </div>
        </section>
        <section id="timeline-section">
          <h2>Timeline <span class="note" id="timeline-note"></span></h2>
          <div class="scroll"><ol id="timeline"></ol><button id="load-older" type="button" hidden>load older</button></div>
        </section>
        <section id="events-section">
          <h2>Events <label class="note"><input id="events-filter" type="checkbox" checked> only under the path</label></h2>
          <div class="scroll"><ol id="events"><li class="event message" id="events-empty">events appear here as models send them while this page is open; earlier ones are not shown (the Timeline has each revision's intent)</li></ol></div>
        </section>
      </div>
    </main>
    <script>
    """#

  /// The end of the script and of the page.
  static let markupEnd = #"""
    </script>
    </body>
    </html>
    """#
}
