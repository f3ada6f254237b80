extension InspectorPage {
  /// The page's style sheet.
  static let style = #"""
    :root {
      --bg: #f7f7f5; --panel: #ffffff; --ink: #1d1d1f; --muted: #6e6e73; --line: #dcdcd8;
      --accent: #2457c5; --ok: #1f7a3a; --bad: #b3261e; --warn: #9a6200; --flash: #ffe27a;
      --past: #fff4e0; --mono: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace;
    }
    * { box-sizing: border-box; }
    body { margin: 0; font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); background: var(--bg); }
    header { display: flex; flex-wrap: wrap; gap: 6px 18px; align-items: center; padding: 8px 14px; background: #202124; color: #eee; }
    header h1 { font-size: 15px; margin: 0; font-weight: 600; }
    header .stat b { font-weight: 600; color: #fff; }
    header .stat { color: #bbb; font-size: 13px; }
    #conn { padding: 1px 8px; border-radius: 10px; font-size: 12px; background: #555; color: #fff; }
    #conn.connected { background: var(--ok); }
    #conn.down { background: var(--bad); }
    #conn.connecting { background: var(--warn); }
    .token-box { margin-left: auto; display: flex; gap: 6px; align-items: center; }
    .token-box input { width: 14em; }
    #token-status { font-size: 12px; color: #ffb4ab; }
    input, select, textarea, button { font: inherit; }
    input[type=text], input[type=password], input[type=number], textarea, select { padding: 3px 6px; border: 1px solid var(--line); border-radius: 4px; background: #fff; }
    button { padding: 3px 10px; border: 1px solid var(--line); border-radius: 4px; background: #fff; cursor: pointer; }
    button:disabled { cursor: default; opacity: .5; }
    .bar { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; padding: 8px 14px; border-bottom: 1px solid var(--line); background: var(--panel); }
    #path-filter { width: 22em; font-family: var(--mono); }
    #path-filter.invalid { border-color: var(--bad); }
    #mode { padding: 2px 10px; border-radius: 4px; font-weight: 600; background: #e4f2e7; color: var(--ok); }
    body.past #mode { background: var(--past); color: var(--warn); border: 1px solid #e8c07a; }
    #timeline-slider { flex: 1 1 240px; min-width: 160px; }
    #slider-label { font-family: var(--mono); min-width: 5em; }
    main { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 10px; padding: 10px 14px; height: calc(100vh - 96px); }
    .column { display: flex; flex-direction: column; gap: 10px; min-height: 0; }
    section { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; display: flex; flex-direction: column; min-height: 0; }
    section > h2 { font-size: 13px; margin: 0; padding: 6px 10px; border-bottom: 1px solid var(--line); display: flex; gap: 8px; align-items: center; }
    section > h2 .note { font-weight: normal; color: var(--muted); }
    .scroll { overflow: auto; flex: 1 1 auto; min-height: 0; padding: 6px 10px; }
    #tree-section { flex: 1; }
    body.past #tree-section { background: var(--past); }
    #intents-section { flex: 0 1 auto; max-height: 40%; }
    #timeline-section, #events-section { flex: 1 1 0; }
    .message { color: var(--muted); font-style: italic; padding: 4px 0; }
    .error { color: var(--bad); }

    /* Tree */
    #tree { font-family: var(--mono); font-size: 13px; }
    .node > .children { padding-left: 16px; border-left: 1px dotted var(--line); margin-left: 5px; }
    .row { display: flex; gap: 6px; align-items: baseline; white-space: nowrap; padding: 0 4px; border-radius: 3px; cursor: pointer; }
    .row:hover { background: #eef2fb; }
    .node.selected > .row { background: #dbe5fb; }
    .toggle { width: 1em; display: inline-block; color: var(--muted); text-align: center; }
    .node.container > .row > .toggle::before { content: "\25B8"; }
    .node.container.open > .row > .toggle::before { content: "\25BE"; }
    .key { color: #7a3e9d; }
    .key::after { content: ":"; color: var(--muted); }
    .value { overflow: hidden; text-overflow: ellipsis; }
    .value.string { color: #1a7f37; }
    .value.number { color: #0550ae; }
    .value.boolean, .value.null { color: #953800; }
    .value.container { color: var(--muted); }
    .type-tag { font-size: 11px; color: #fff; background: #6d6d9e; border-radius: 3px; padding: 0 4px; }
    .more { margin: 2px 0 2px 20px; font-size: 12px; }
    .node.flash > .row { animation: flash 1.2s ease-out; }
    @keyframes flash { from { background: var(--flash); } to { background: transparent; } }

    /* Timeline */
    #timeline { list-style: none; margin: 0; padding: 0; font-size: 12px; }
    .rev { display: grid; grid-template-columns: 4.5em 7.5em minmax(6em, 1fr) minmax(6em, 1fr); gap: 2px 8px; padding: 2px 4px; border-bottom: 1px solid #f0f0ec; cursor: pointer; }
    .rev:hover { background: #eef2fb; }
    .rev.current { background: var(--past); }
    .rev-n { font-family: var(--mono); font-weight: 600; }
    .rev-time { color: var(--muted); font-family: var(--mono); }
    .rev-intent, .rev-target { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
    .rev-target { font-family: var(--mono); }
    .rev-patch { grid-column: 1 / -1; font-family: var(--mono); color: var(--muted); overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
    .rev.pending .rev-intent { color: var(--muted); }

    /* Events */
    #events { list-style: none; margin: 0; padding: 0; font-size: 12px; }
    .event { padding: 2px 4px; border-bottom: 1px solid #f0f0ec; }
    .event .ev-head { display: flex; gap: 8px; }
    .event .ev-type { font-weight: 600; }
    .event .ev-source, .event code { font-family: var(--mono); color: var(--muted); }
    .event code { display: block; white-space: pre-wrap; word-break: break-all; color: var(--ink); }

    /* Intents */
    #intents-readonly { color: var(--warn); font-size: 12px; }
    .intent-group > h3 { font-size: 12px; margin: 8px 0 4px; color: var(--muted); }
    form.intent { border: 1px solid var(--line); border-radius: 4px; padding: 6px 8px; margin: 6px 0; }
    form.intent fieldset { border: 0; margin: 0; padding: 0; display: grid; grid-template-columns: max-content 1fr; gap: 4px 8px; align-items: center; }
    form.intent .intent-name { grid-column: 1 / -1; font-family: var(--mono); font-weight: 600; }
    form.intent label { font-family: var(--mono); font-size: 12px; }
    form.intent .hint { grid-column: 2; font-size: 11px; color: var(--muted); }
    form.intent textarea { font-family: var(--mono); font-size: 12px; min-height: 3em; }
    form.intent .actions { grid-column: 1 / -1; display: flex; gap: 10px; align-items: center; }
    .intent-result { font-family: var(--mono); font-size: 12px; white-space: pre-wrap; word-break: break-all; }
    .intent-result[data-status=ok] { color: var(--ok); }
    .intent-result[data-status=error] { color: var(--bad); }
    """#
}
