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
  static let html: String = #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Arbor inspector</title>
    <style>
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
          <div class="scroll"><ol id="events"></ol></div>
        </section>
      </div>
    </main>
    <script>
    'use strict';

    // ---------------------------------------------------------------- helpers

    const $ = (selector) => document.querySelector(selector);
    const hasOwn = (object, key) => Object.prototype.hasOwnProperty.call(object, key);
    const isContainer = (value) => value !== null && typeof value === 'object';

    function el(tag, className, text) {
      const element = document.createElement(tag);
      if (className) element.className = className;
      if (text !== undefined) element.textContent = text;
      return element;
    }

    function short(value, max = 80) {
      let text = value === undefined ? 'undefined' : JSON.stringify(value);
      if (text.length > max) text = text.slice(0, max - 1) + '\u2026';
      return text;
    }

    function clone(value) { return isContainer(value) ? JSON.parse(JSON.stringify(value)) : value; }

    function deepEqual(a, b) {
      if (a === b) return true;
      if (!isContainer(a) || !isContainer(b) || Array.isArray(a) !== Array.isArray(b)) return false;
      const keys = Object.keys(a);
      if (keys.length !== Object.keys(b).length) return false;
      return keys.every((key) => hasOwn(b, key) && deepEqual(a[key], b[key]));
    }

    // ---------------------------------------------------------------- JSON Pointer and Patch (RFC 6901, 6902)

    const Pointer = {
      parse(pointer) {
        if (pointer === '') return [];
        if (pointer[0] !== '/') throw new Error(`'${pointer}' is not a JSON Pointer: it must be empty or start with '/'`);
        return pointer.slice(1).split('/').map((token) => {
          if (/~[^01]|~$/.test(token)) throw new Error(`'${pointer}' is not a JSON Pointer: '~' must be followed by '0' or '1'`);
          return token.replace(/~1/g, '/').replace(/~0/g, '~');
        });
      },
      escape: (token) => String(token).replace(/~/g, '~0').replace(/\//g, '~1'),
      join: (base, token) => base + '/' + Pointer.escape(token),
      fromTokens: (tokens) => tokens.map((token) => '/' + Pointer.escape(token)).join(''),
      parent: (pointer) => pointer.slice(0, Math.max(0, pointer.lastIndexOf('/'))),
      // Whether `pointer` is `prefix` or below it.
      within: (prefix, pointer) => prefix === '' || pointer === prefix || pointer.startsWith(prefix + '/'),
      valid(pointer) { try { Pointer.parse(pointer); return true; } catch { return false; } },
    };

    const isIndex = (token) => /^(0|[1-9][0-9]*)$/.test(token);

    // The value at `tokens`, or `undefined` when nothing is there.
    function lookup(document, tokens) {
      let value = document;
      for (const token of tokens) {
        if (Array.isArray(value)) {
          if (!isIndex(token) || Number(token) >= value.length) return undefined;
          value = value[Number(token)];
        } else if (isContainer(value)) {
          if (!hasOwn(value, token)) return undefined;
          value = value[token];
        } else {
          return undefined;
        }
      }
      return value;
    }

    function containerFor(document, pointer) {
      const tokens = Pointer.parse(pointer);
      const last = tokens.pop();
      const parent = lookup(document, tokens);
      if (!isContainer(parent)) throw new Error(`nothing at '${Pointer.fromTokens(tokens)}' to hold '${pointer}'`);
      return { parent, last };
    }

    function setKey(object, key, value) {
      // A plain assignment to "__proto__" would change the prototype instead.
      Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
    }

    function patchAdd(document, pointer, value) {
      if (pointer === '') return value;
      const { parent, last } = containerFor(document, pointer);
      if (Array.isArray(parent)) {
        if (last === '-') parent.push(value);
        else if (isIndex(last) && Number(last) <= parent.length) parent.splice(Number(last), 0, value);
        else throw new Error(`'${last}' at '${pointer}' is not an index where an element can be added`);
      } else {
        setKey(parent, last, value);
      }
      return document;
    }

    function patchRemove(document, pointer) {
      if (pointer === '') throw new Error('the root cannot be removed');
      const { parent, last } = containerFor(document, pointer);
      if (Array.isArray(parent)) {
        if (!isIndex(last) || Number(last) >= parent.length) throw new Error(`nothing at '${pointer}'`);
        return parent.splice(Number(last), 1)[0];
      }
      if (!hasOwn(parent, last)) throw new Error(`nothing at '${pointer}'`);
      const removed = parent[last];
      delete parent[last];
      return removed;
    }

    // In place, so that an object's keys keep their order.
    function patchReplace(document, pointer, value) {
      if (pointer === '') return value;
      patchGet(document, pointer);
      const { parent, last } = containerFor(document, pointer);
      if (Array.isArray(parent)) parent[Number(last)] = value;
      else setKey(parent, last, value);
      return document;
    }

    function patchGet(document, pointer) {
      const value = lookup(document, Pointer.parse(pointer));
      if (value === undefined) throw new Error(`nothing at '${pointer}'`);
      return value;
    }

    // Applies `operations` to `document` in place and returns the new document (the root
    // may be replaced). A failure leaves the document half-changed: the caller re-reads.
    function applyPatch(document, operations) {
      operations.forEach((operation, index) => {
        try {
          switch (operation.op) {
            case 'add': document = patchAdd(document, operation.path, operation.value); break;
            case 'remove': patchRemove(document, operation.path); break;
            case 'replace': document = patchReplace(document, operation.path, operation.value); break;
            case 'move': {
              if (Pointer.within(operation.from, operation.path) && operation.from !== operation.path) {
                throw new Error(`'${operation.from}' cannot move into itself`);
              }
              const value = operation.from === '' ? document : patchRemove(document, operation.from);
              document = patchAdd(operation.from === '' ? undefined : document, operation.path, value);
              break;
            }
            case 'copy': document = patchAdd(document, operation.path, clone(patchGet(document, operation.from))); break;
            case 'test':
              if (!deepEqual(patchGet(document, operation.path), operation.value)) throw new Error(`the value at '${operation.path}' differs`);
              break;
            default: throw new Error(`unknown op '${operation.op}'`);
          }
        } catch (error) {
          throw new Error(`operation ${index} ('${operation.op}') failed: ${error.message}`);
        }
      });
      return document;
    }

    function summarizePatch(patch) {
      if (!patch) return '';
      const parts = patch.slice(0, 3).map((operation) => {
        switch (operation.op) {
          case 'remove': return `remove ${operation.path}`;
          case 'move': case 'copy': return `${operation.op} ${operation.from} \u2192 ${operation.path}`;
          default: return `${operation.op} ${operation.path || '(root)'} = ${short(operation.value, 48)}`;
        }
      });
      if (patch.length > 3) parts.push(`+${patch.length - 3} more`);
      return parts.join('; ');
    }

    // ---------------------------------------------------------------- connection

    const TOKEN_KEY = 'arbor.inspector.token';
    const conn = {
      ws: null, opened: false, role: null, nextID: 1, pending: new Map(),
      attempt: 0, retryTimer: 0, countdown: 0, checkingToken: false, tokenRejected: false, statusTimer: 0,
    };

    function storedToken() { return sessionStorage.getItem(TOKEN_KEY) || ''; }
    function activeToken() { return conn.tokenRejected || conn.checkingToken ? '' : storedToken(); }

    function setConn(text, kind) {
      const badge = $('#conn');
      badge.textContent = text;
      badge.className = kind;
    }

    function socketURL() { return (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/rpc'; }

    function connect() {
      clearTimeout(conn.retryTimer);
      clearInterval(conn.countdown);
      const token = activeToken();
      const protocols = token ? ['arbor.jsonrpc', 'arbor.token.' + token] : ['arbor.jsonrpc'];
      let ws;
      try {
        ws = new WebSocket(socketURL(), protocols);
      } catch (error) {
        // A token with characters a subprotocol cannot carry is never right.
        if (token) { rejectToken('wrong token (it holds characters a token cannot have)'); connect(); return; }
        setConn('cannot connect: ' + error.message, 'down');
        scheduleReconnect();
        return;
      }
      conn.ws = ws;
      conn.opened = false;
      setConn(conn.checkingToken ? 'checking the token…' : 'connecting', 'connecting');
      ws.onopen = () => {
        if (ws !== conn.ws) return;
        conn.opened = true;
        conn.role = token ? 'operator' : 'reader';
        // Connected once the daemon answers: a refused token closes the socket first.
        call('daemon.status').then((status) => {
          if (ws !== conn.ws) return;
          conn.attempt = 0;
          if (conn.checkingToken) {
            // The daemon is up and took a connection without the token: the token was refused.
            conn.checkingToken = false;
            rejectToken('wrong token');
          }
          showStatus(status);
          onConnected();
        }).catch(() => {});
      };
      ws.onmessage = (event) => { if (ws === conn.ws) onFrame(event.data); };
      ws.onerror = () => {};
      ws.onclose = (event) => { if (ws === conn.ws) onClosed(event, token); };
    }

    function onClosed(event, token) {
      const opened = conn.opened;
      conn.ws = null;
      conn.opened = false;
      conn.role = null;
      clearInterval(conn.statusTimer);
      for (const { reject } of conn.pending.values()) reject(Object.assign(new Error('the connection closed'), { disconnected: true }));
      conn.pending.clear();
      live.subscription = null;
      events.subscription = null;
      updateIntentAccess();
      if (!opened && token) {
        // The upgrade failed with a token: try without it to tell a wrong token from a daemon that is down.
        conn.checkingToken = true;
        connect();
        return;
      }
      if (!opened && conn.checkingToken) conn.checkingToken = false;
      // A refused upgrade may also arrive as a close with 4000 + the HTTP status and the reason.
      if (token && event.code === 4401) {
        rejectToken(event.reason && event.reason !== 'wrong token' ? `wrong token: ${event.reason}` : 'wrong token');
        connect();
        return;
      }
      scheduleReconnect(event.code >= 4000 && event.code < 5000 ? `${event.code - 4000}: ${event.reason}` : event.reason);
    }

    function scheduleReconnect(reason) {
      const delay = Math.min(15000, 500 * 2 ** conn.attempt) * (0.8 + Math.random() * 0.4);
      conn.attempt += 1;
      const until = Date.now() + delay;
      const tick = () => {
        const seconds = Math.max(0, Math.ceil((until - Date.now()) / 1000));
        setConn(`disconnected${reason ? ' (' + reason + ')' : ''}; retrying in ${seconds}s`, 'down');
      };
      tick();
      clearTimeout(conn.retryTimer);
      clearInterval(conn.countdown);
      conn.countdown = setInterval(tick, 1000);
      conn.retryTimer = setTimeout(connect, delay);
    }

    function rejectToken(message) {
      conn.tokenRejected = true;
      sessionStorage.removeItem(TOKEN_KEY);
      $('#token-status').textContent = message + '; read-only';
    }

    // Sends a request and resolves with its result; rejects with the JSON-RPC error
    // (`code`, `message`, `data`) or a connection error.
    function call(method, params) {
      return new Promise((resolve, reject) => {
        if (!conn.ws || !conn.opened) { reject(Object.assign(new Error('not connected'), { disconnected: true })); return; }
        const id = conn.nextID++;
        conn.pending.set(id, { resolve, reject });
        const message = { jsonrpc: '2.0', id, method };
        if (params !== undefined) message.params = params;
        conn.ws.send(JSON.stringify(message));
      });
    }

    function onFrame(text) {
      let message;
      try { message = JSON.parse(text); } catch { console.warn('not JSON:', text.slice(0, 200)); return; }
      for (const item of Array.isArray(message) ? message : [message]) {
        if (item.method !== undefined && item.id === undefined) { onNotification(item.method, item.params || {}); continue; }
        const waiting = conn.pending.get(item.id);
        if (!waiting) continue;
        conn.pending.delete(item.id);
        if (item.error) waiting.reject(Object.assign(new Error(item.error.message), item.error));
        else waiting.resolve(item.result);
      }
    }

    function onNotification(method, params) {
      switch (method) {
        case 'state.changed': onStateChanged(params); break;
        case 'events.emitted': onEvent(params); break;
        case 'watch.closed': onWatchClosed(params); break;
      }
    }

    function errorName(error) { return error && error.data && error.data.name; }
    function errorText(error) { return errorName(error) ? `${error.message} (${errorName(error)})` : String(error.message || error); }

    function onConnected() {
      setConn(conn.role === 'operator' ? 'connected (operator)' : 'connected (reader)', 'connected');
      if (conn.role === 'operator') $('#token-status').textContent = '';
      updateIntentAccess();
      if (!schema.document) {
        call('rpc.discover').then((document) => { schema.load(document); renderIntents(); renderTree(); })
          .catch((error) => { if (!error.disconnected) $('#intents').textContent = 'rpc.discover failed: ' + errorText(error); });
      }
      clearInterval(conn.statusTimer);
      conn.statusTimer = setInterval(refreshStatus, 3000);
      startStateWatch();
      startEventsWatch();
      if (view.revision !== null) showRevision(view.revision);
    }

    // ---------------------------------------------------------------- daemon status

    let lastStatus = null;

    // The newest revision known, from the status or the watch, whichever is ahead.
    function showRevisionInHeader(revision) {
      const shown = $('#daemon-revision');
      if (!(Number(shown.textContent) >= revision)) shown.textContent = revision;
    }

    function refreshStatus() { call('daemon.status').then(showStatus).catch(() => {}); }

    function showStatus(status) {
      lastStatus = status;
      $('#daemon-name').textContent = status.name;
      $('#daemon-version').textContent = status.version;
      $('#daemon-revision').textContent = Math.max(status.revision, live.revision ?? 0);
      $('#daemon-clients').textContent = status.clients;
      updateUndo();
    }

    // ---------------------------------------------------------------- live state

    // The live copy of the whole tree: the value of the root watch at `revision`.
    const live = { value: undefined, revision: null, subscription: null };

    async function startStateWatch() {
      const since = live.revision;
      const params = since === null ? { path: '' } : { path: '', since };
      try {
        const result = await call('state.watch', params);
        live.subscription = result.subscription;
        if (since === null) {
          if (timeline.latest() !== null && result.revision < timeline.latest()) timeline.reset();
          setLiveValue(result.value, result.revision);
        }
        timeline.start();
      } catch (error) {
        if (error.disconnected) return;
        if (since !== null && (error.code === 1006 || error.code === -32602)) {
          // The history no longer holds `since`, or the daemon is behind it (a new state): read it again.
          live.revision = null;
          startStateWatch();
          return;
        }
        $('#tree').textContent = 'state.watch failed: ' + errorText(error);
      }
    }

    function setLiveValue(value, revision) {
      live.value = value;
      live.revision = revision;
      showRevisionInHeader(revision);
      timeline.noteLive(revision);
      if (view.revision === null) renderTree();
      renderIntents();
    }

    function onStateChanged(params) {
      if (params.subscription !== live.subscription) return;
      if (params.resync) {
        setLiveValue(params.exists === false ? undefined : params.value, params.revision);
        timeline.addLive(params.revision, 'resync: the whole value');
        return;
      }
      if (live.revision !== null && params.revision <= live.revision) return;
      if (live.revision !== null && params.revision !== live.revision + 1) {
        console.warn(`revision ${params.revision} after ${live.revision}: reading the state again`);
        rewatch();
        return;
      }
      const summary = summarizePatch(params.patch);
      try {
        live.value = applyPatch(live.value, params.patch || []);
      } catch (error) {
        console.warn(`revision ${params.revision}: ${error.message}; reading the state again`);
        rewatch();
        return;
      }
      live.revision = params.revision;
      showRevisionInHeader(params.revision);
      timeline.addLive(params.revision, summary);
      if (view.revision === null) tree.patched(params.patch || []);
    }

    function rewatch() {
      if (live.subscription !== null) call('watch.cancel', { subscription: live.subscription }).catch(() => {});
      live.subscription = null;
      live.revision = null;
      startStateWatch();
    }

    // ---------------------------------------------------------------- state schema and model types

    // The discovery document and what the page reads from it: the state's schema (to know
    // which model type each node is) and every model type's intents.
    const schema = {
      document: null, root: null, defs: {}, intents: {}, intentTypeByDef: {},
      load(document) {
        this.document = document;
        const components = document.components || {};
        this.root = (components.schemas || {}).State || null;
        this.defs = (this.root && this.root.$defs) || {};
        this.intents = components['x-intents'] || {};
        // x-intents is keyed by type name, $defs by the same name made safe for a key.
        for (const type of Object.keys(this.intents)) this.intentTypeByDef[type.replace(/[^A-Za-z0-9_.-]/g, '_')] = type;
      },
      refName(ref) { return typeof ref === 'string' && ref.startsWith('#/$defs/') ? decodeURIComponent(Pointer.parse(ref.slice(1))[1]) : null; },
      resolve(node) {
        for (let depth = 0; node && typeof node === 'object' && node.$ref && depth < 32; depth++) {
          const name = this.refName(node.$ref);
          if (!name || !this.defs[name]) break;
          const { $ref, ...rest } = node;
          node = { ...this.defs[name], ...rest };
        }
        return node;
      },
      isModelDef(name) {
        const def = this.defs[name];
        return !!this.intentTypeByDef[name] || !!(def && def.properties && def.properties.id && def.properties.id.pattern);
      },
      // The model type (a key of x-intents when it has intents) of the node at `tokens`
      // holding `value`, found by walking the state's schema; null when it is no model.
      typeAt(tokens, value) {
        if (!this.root) return null;
        const found = [];
        const walk = (node, index, ref, depth) => {
          if (!node || typeof node !== 'object' || depth > 64 || found.length) return;
          if (node.$ref) {
            const name = this.refName(node.$ref);
            if (name && this.defs[name]) walk(this.defs[name], index, name, depth + 1);
            return;
          }
          for (const key of ['anyOf', 'oneOf', 'allOf']) {
            if (Array.isArray(node[key])) node[key].forEach((branch) => walk(branch, index, ref, depth + 1));
          }
          if (index === tokens.length) {
            if (ref && this.isModelDef(ref) && this.fits(node, value)) found.push(ref);
            return;
          }
          const token = tokens[index];
          if (node.properties && hasOwn(node.properties, token)) walk(node.properties[token], index + 1, null, depth + 1);
          else if (node.additionalProperties && typeof node.additionalProperties === 'object') walk(node.additionalProperties, index + 1, null, depth + 1);
          if (isIndex(token)) {
            if (Array.isArray(node.prefixItems) && node.prefixItems[Number(token)]) walk(node.prefixItems[Number(token)], index + 1, null, depth + 1);
            else if (node.items && typeof node.items === 'object') walk(node.items, index + 1, null, depth + 1);
          }
        };
        walk(this.root, 0, null, 0);
        if (found.length) return this.intentTypeByDef[found[0]] || found[0];
        return this.typeByKeys(value);
      },
      fits(node, value) {
        if (value === undefined) return true;
        if (!isContainer(value) || Array.isArray(value)) return false;
        if (node.additionalProperties === false && node.properties) return Object.keys(value).every((key) => hasOwn(node.properties, key));
        return true;
      },
      // Without a path through the schema: the one model definition with exactly these keys.
      typeByKeys(value) {
        if (!isContainer(value) || Array.isArray(value) || typeof value.id !== 'string' || !/^[0-9a-f]{16}$/.test(value.id)) return null;
        const keys = Object.keys(value).sort().join(',');
        const matches = Object.keys(this.defs).filter((name) => this.isModelDef(name) && this.defs[name].properties
          && Object.keys(this.defs[name].properties).sort().join(',') === keys);
        return matches.length === 1 ? (this.intentTypeByDef[matches[0]] || matches[0]) : null;
      },
    };

    // ---------------------------------------------------------------- tree

    const PAGE = 200;
    const tree = {
      expanded: new Set(['']),   // pointers of the open nodes
      shown: new Map(),          // pointer -> how many children are drawn
      dirty: new Set(), flashes: new Set(), frame: 0,
      selected: null,
    };

    function filterPath() {
      const text = $('#path-filter').value.trim();
      return Pointer.valid(text) ? text : '';
    }

    // What the tree shows: the subtree at the filter, live or at the revision viewed.
    function displayed() {
      const base = filterPath();
      if (view.revision === null) {
        if (live.revision === null) return { base, loading: 'waiting for the state…' };
        const value = lookup(live.value, Pointer.parse(base));
        return value === undefined ? { base, missing: `nothing at '${base}'` } : { base, value };
      }
      const entry = view.cache.get(view.key(view.revision, base));
      if (!entry) return { base, loading: `loading revision ${view.revision}…` };
      if (entry.error) return { base, missing: `revision ${view.revision}: ${entry.error}` };
      return { base, value: entry.value };
    }

    function nodeElement(pointer) { return $('#tree').querySelector(`.node[data-path="${CSS.escape(pointer)}"]`); }

    function renderTree() {
      cancelAnimationFrame(tree.frame);
      tree.frame = 0;
      tree.dirty.clear();
      const container = $('#tree');
      const shown = displayed();
      container.textContent = '';
      if (shown.loading || shown.missing) {
        container.append(el('div', 'message' + (shown.missing ? ' error' : ''), shown.loading || shown.missing));
      } else {
        container.append(renderNode(shown.base, shown.base === '' ? '(root)' : Pointer.parse(shown.base).pop(), shown.value));
      }
      $('#tree-note').textContent = view.revision === null ? `revision ${live.revision ?? '-'}` : `at revision ${view.revision}`;
    }

    function renderNode(pointer, label, value) {
      const node = el('div', 'node');
      node.dataset.path = pointer;
      const row = el('div', 'row');
      const open = isContainer(value) && tree.expanded.has(pointer);
      row.append(el('span', 'toggle'), el('span', 'key', label));
      if (isContainer(value)) {
        node.classList.add('container');
        if (open) node.classList.add('open');
        const count = Array.isArray(value) ? value.length : Object.keys(value).length;
        row.append(el('span', 'value container', Array.isArray(value) ? `[${count}]` : `{${count}}`));
        if (!Array.isArray(value) && schema.root) {
          const type = schema.typeAt(Pointer.parse(pointer), value);
          if (type) row.append(el('span', 'type-tag', type));
        }
      } else {
        row.append(el('span', 'value ' + (value === null ? 'null' : typeof value), JSON.stringify(value)));
      }
      if (pointer === tree.selected) node.classList.add('selected');
      node.append(row);
      if (open) node.append(renderChildren(pointer, value));
      return node;
    }

    function renderChildren(pointer, value) {
      const box = el('div', 'children');
      const keys = Array.isArray(value) ? null : Object.keys(value);
      const count = keys ? keys.length : value.length;
      const limit = Math.min(count, tree.shown.get(pointer) || PAGE);
      const fragment = document.createDocumentFragment();
      for (let index = 0; index < limit; index++) {
        const key = keys ? keys[index] : String(index);
        fragment.append(renderNode(Pointer.join(pointer, key), key, keys ? value[key] : value[index]));
      }
      box.append(fragment);
      if (count > limit) {
        const more = el('button', 'more', `show more (${limit} of ${count})`);
        more.type = 'button';
        more.dataset.morePath = pointer;
        box.append(more);
      }
      return box;
    }

    // The value shown at `pointer`, a pointer at or below the displayed subtree.
    function shownValueAt(pointer) {
      const shown = displayed();
      if (shown.value === undefined || !Pointer.within(shown.base, pointer)) return undefined;
      return lookup(shown.value, Pointer.parse(pointer).slice(Pointer.parse(shown.base).length));
    }

    // Draws the node at `pointer` again, or its nearest drawn ancestor whose value still exists.
    function rerender(pointer) {
      const base = filterPath();
      for (let at = pointer; ; at = Pointer.parent(at)) {
        const old = nodeElement(at);
        const value = shownValueAt(at);
        if (old && value !== undefined) {
          old.replaceWith(renderNode(at, old.querySelector(':scope > .row > .key').textContent, value));
          return;
        }
        if (at === base || at === '') { renderTree(); return; }
      }
    }

    // A live patch: marks what it touched, drawn again at the next animation frame.
    tree.patched = function (patch) {
      for (const operation of patch) {
        const touched = operation.op === 'replace' ? [operation.path]
          : operation.op === 'test' ? []
          : operation.op === 'move' ? [Pointer.parent(operation.from), Pointer.parent(operation.path)]
          : [Pointer.parent(operation.path)];
        for (const pointer of touched) this.dirty.add(pointer);
        if (operation.op !== 'test') this.flashes.add(operation.op === 'remove' ? Pointer.parent(operation.path) : operation.path);
      }
      if (!this.frame) this.frame = requestAnimationFrame(() => this.flush());
    };

    tree.flush = function () {
      this.frame = 0;
      const base = filterPath();
      const dirty = [...this.dirty];
      const flashes = [...this.flashes];
      this.dirty.clear();
      this.flashes.clear();
      if (view.revision !== null) return;
      // A change above the subtree shown, or too many: the whole view (it holds only what is open).
      if (dirty.length > 500 || dirty.some((pointer) => Pointer.within(pointer, base) && pointer !== base) || !nodeElement(base)) {
        if (dirty.some((pointer) => Pointer.within(pointer, base) || Pointer.within(base, pointer))) renderTree();
      } else {
        // Only drawn nodes are drawn again, outermost first, each once: a change inside a
        // node that is not drawn leaves its drawn ancestors as they were (they show counts only).
        const targets = dirty.filter((pointer) => Pointer.within(base, pointer) && nodeElement(pointer));
        const sorted = [...new Set(targets)].sort((a, b) => a.length - b.length);
        const done = [];
        for (const pointer of sorted) {
          if (done.some((outer) => Pointer.within(outer, pointer))) continue;
          done.push(pointer);
          rerender(pointer);
        }
      }
      $('#tree-note').textContent = `revision ${live.revision}`;
      for (const pointer of flashes.slice(0, 300)) {
        if (!Pointer.within(base, pointer)) continue;
        let at = pointer;
        let node = nodeElement(at);
        while (!node && at !== base) { at = Pointer.parent(at); node = nodeElement(at); }
        if (!node) continue;
        node.classList.remove('flash');
        void node.offsetWidth;   // restarts the animation
        node.classList.add('flash');
      }
    };

    function toggle(pointer) {
      if (tree.expanded.has(pointer)) tree.expanded.delete(pointer);
      else tree.expanded.add(pointer);
      rerender(pointer);
    }

    function select(pointer) {
      const previous = tree.selected !== null && nodeElement(tree.selected);
      if (previous) previous.classList.remove('selected');
      tree.selected = pointer;
      const node = nodeElement(pointer);
      if (node) node.classList.add('selected');
      renderIntents();
    }

    $('#tree').addEventListener('click', (event) => {
      const more = event.target.closest('.more');
      if (more) {
        const pointer = more.dataset.morePath;
        tree.shown.set(pointer, (tree.shown.get(pointer) || PAGE) + PAGE);
        rerender(pointer);
        return;
      }
      const node = event.target.closest('.node');
      if (!node) return;
      if (event.target.closest('.toggle')) { toggle(node.dataset.path); return; }
      select(node.dataset.path);
    });
    $('#tree').addEventListener('dblclick', (event) => {
      const node = event.target.closest('.node');
      if (node && node.classList.contains('container')) toggle(node.dataset.path);
    });

    // ---------------------------------------------------------------- path filter

    let filterTimer = 0;
    function applyFilter() {
      const input = $('#path-filter');
      const text = input.value.trim();
      input.classList.toggle('invalid', !Pointer.valid(text));
      if (!Pointer.valid(text)) return;
      tree.expanded.add(text);
      if (view.revision !== null) showRevision(view.revision);
      else renderTree();
      filterEvents();
    }
    $('#path-filter').addEventListener('input', () => { clearTimeout(filterTimer); filterTimer = setTimeout(applyFilter, 250); });
    $('#path-filter').addEventListener('change', () => { clearTimeout(filterTimer); applyFilter(); });
    $('#path-filter').addEventListener('keydown', (event) => { if (event.key === 'Enter') { clearTimeout(filterTimer); applyFilter(); } });

    // ---------------------------------------------------------------- timeline and time travel

    const MAX_ROWS = 2000;
    const timeline = {
      rows: new Map(),   // revision -> {revision, time, intent, target, summary, filled}
      items: new Map(),  // revision -> its <li>
      order: [],         // the known revisions, ascending
      oldest: null,      // the oldest revision the journal keeps
      started: false, filling: false, fillTimer: 0, fillTries: 0,

      latest() { return this.order.length ? this.order[this.order.length - 1] : null; },
      reset() {
        this.rows.clear(); this.items.clear(); this.order = []; this.oldest = null; this.started = false;
        $('#timeline').textContent = '';
        view.cache.clear();
        if (view.revision !== null) goLive();
      },
      // Called once the state watch has its first value: the recent revisions from the journal.
      start() {
        if (this.started) { this.scheduleFill(); return; }
        this.started = true;
        this.loadBefore(live.revision + 1, PAGE);
      },
      noteLive(revision) {
        // The watch's own revision is a point of the slider even before any change.
        if (!this.rows.has(revision)) this.put({ revision, summary: '', filled: false });
        this.scheduleFill();
        updateSlider();
      },
      addLive(revision, summary) {
        const row = this.rows.get(revision);
        if (!row) this.put({ revision, summary, filled: false });
        this.trim();
        this.scheduleFill();
        updateSlider();
      },
      // The journal's revisions below `end`, at most `count` of them.
      async loadBefore(end, count) {
        let since = Math.max(0, end - 1 - count);
        if (this.oldest !== null) since = Math.max(since, this.oldest);
        for (let attempt = 0; attempt < 3; attempt++) {
          try {
            const page = await call('history.changes', { since, limit: Math.max(1, end - 1 - since) });
            this.merge(page);
            if (since === page.oldest && !this.rows.has(page.oldest) && page.oldest < end) {
              this.put({ revision: page.oldest, intent: null, target: null, summary: 'the oldest state kept', filled: true, base: true });
            }
            break;
          } catch (error) {
            if (error.code === 1006 && error.data && typeof error.data.oldest === 'number') {
              this.oldest = error.data.oldest;
              since = Math.max(since, this.oldest);
              continue;
            }
            if (!error.disconnected) $('#timeline-note').textContent = 'history.changes failed: ' + errorText(error);
            break;
          }
        }
        updateSlider();
      },
      merge(page) {
        this.oldest = page.oldest;
        for (const change of page.changes) {
          this.put({
            revision: change.revision, time: change.time, intent: change.intent, target: change.target,
            summary: summarizePatch(change.patch), filled: true,
          });
        }
        this.trim();
      },
      put(row) {
        const existing = this.rows.get(row.revision);
        if (existing && existing.filled && !row.filled) return;
        this.rows.set(row.revision, row);
        if (!existing) {
          const order = this.order;
          let at = order.length;
          while (at > 0 && order[at - 1] > row.revision) at--;
          order.splice(at, 0, row.revision);
        }
        this.draw(row);
      },
      draw(row) {
        const item = el('li', 'rev' + (row.filled ? '' : ' pending'));
        item.dataset.revision = row.revision;
        const time = row.time ? row.time.replace(/^.*T/, '').replace(/Z$/, '') : '';
        item.append(
          el('span', 'rev-n', 'r' + row.revision), el('span', 'rev-time', time),
          el('span', 'rev-intent', row.filled ? (row.intent || (row.base ? '' : '(no intent)')) : '\u2026'),
          el('span', 'rev-target', row.target === null || row.target === undefined ? '' : (typeof row.target === 'string' ? row.target || '/' : JSON.stringify(row.target))),
          el('span', 'rev-patch', row.summary || ''));
        if (view.revision === row.revision) item.classList.add('current');
        const old = this.items.get(row.revision);
        this.items.set(row.revision, item);
        if (old) { old.replaceWith(item); return; }
        // Newest first: before the next older revision.
        const at = this.order.indexOf(row.revision);
        $('#timeline').insertBefore(item, at > 0 ? this.items.get(this.order[at - 1]) || null : null);
      },
      trim() {
        while (this.order.length > MAX_ROWS) {
          const revision = this.order.shift();
          this.rows.delete(revision);
          const item = this.items.get(revision);
          this.items.delete(revision);
          if (item) item.remove();
        }
        const first = this.order[0];
        $('#load-older').hidden = !(first !== undefined && this.oldest !== null && first > this.oldest && this.order.length < MAX_ROWS);
        $('#timeline-note').textContent = this.order.length ? `${this.order.length} revisions, oldest kept ${this.oldest ?? '?'}` : '';
      },
      // Live rows carry no intent: read them from the journal, a little later, in pages.
      scheduleFill() {
        if (this.fillTimer || this.filling) return;
        this.fillTimer = setTimeout(() => { this.fillTimer = 0; this.fill(); }, 200);
      },
      async fill() {
        const unfilled = this.order.find((revision) => !this.rows.get(revision).filled);
        if (unfilled === undefined || !conn.opened) return;
        this.filling = true;
        try {
          const before = this.rows.get(unfilled);
          const page = await call('history.changes', { since: Math.max(unfilled - 1, this.oldest ?? 0), limit: 1000 });
          this.merge(page);
          if (this.rows.get(unfilled) === before && unfilled <= (this.oldest ?? 0)) {
            this.put({ ...before, summary: before.summary || 'the oldest state kept', filled: true, base: true });
          } else if (this.rows.get(unfilled) === before && page.next === null && page.revision >= unfilled) {
            // The journal has every revision up to its current one, and no change for this
            // one (a restored tree starts at a snapshot).
            this.put({ ...before, intent: '(not in the journal)', filled: true });
          }
          this.fillTries = this.rows.get(unfilled) === before ? this.fillTries + 1 : 0;
        } catch (error) {
          if (error.code === 1006 && error.data && typeof error.data.oldest === 'number') this.oldest = error.data.oldest;
          this.fillTries += 1;
        } finally {
          this.filling = false;
        }
        if (this.order.some((revision) => !this.rows.get(revision).filled) && this.fillTries < 5) this.scheduleFill();
      },
    };

    $('#load-older').addEventListener('click', () => { if (timeline.order.length) timeline.loadBefore(timeline.order[0], PAGE); });
    $('#timeline').addEventListener('click', (event) => {
      const item = event.target.closest('li.rev');
      if (item) travelTo(Number(item.dataset.revision));
    });

    // The revision shown: null for live, else a past revision read with state.at.
    const view = {
      revision: null, timer: 0,
      cache: new Map(),   // "revision|path" -> {value} or {error}, the most recent 8 (a root can be large)
      key: (revision, path) => `${revision}|${path}`,
      remember(key, entry) {
        this.cache.delete(key);
        this.cache.set(key, entry);
        while (this.cache.size > 8) this.cache.delete(this.cache.keys().next().value);
      },
    };

    function travelTo(revision) {
      if (live.revision === null) return;
      if (revision >= live.revision) goLive();
      else showRevision(revision);
    }

    function showRevision(revision) {
      view.revision = revision;
      updateMode();
      const base = filterPath();
      const key = view.key(revision, base);
      if (view.cache.has(key)) { view.remember(key, view.cache.get(key)); renderTree(); return; }
      renderTree();   // says it is loading
      clearTimeout(view.timer);
      view.timer = setTimeout(async () => {
        if (view.revision !== revision || filterPath() !== base) return;
        try {
          const result = await call('state.at', { revision, path: base });
          view.remember(key, { value: result.value, time: result.time });
        } catch (error) {
          if (error.disconnected) return;   // asked again once connected
          view.remember(key, { error: errorText(error) });
        }
        if (view.revision === revision && filterPath() === base) renderTree();
      }, 60);
    }

    function goLive() {
      clearTimeout(view.timer);
      view.revision = null;
      updateMode();
      renderTree();
    }

    function updateMode() {
      const past = view.revision !== null;
      document.body.classList.toggle('past', past);
      $('#mode').textContent = past ? `viewing revision ${view.revision}` : 'live';
      for (const item of $('#timeline').querySelectorAll('li.current')) item.classList.remove('current');
      if (past) {
        const item = timeline.items.get(view.revision);
        if (item) { item.classList.add('current'); item.scrollIntoView({ block: 'nearest' }); }
      }
      updateSlider();
    }

    function updateSlider() {
      const slider = $('#timeline-slider');
      const first = timeline.order.length ? timeline.order[0] : live.revision;
      if (live.revision === null || first === null) { slider.disabled = true; return; }
      slider.disabled = false;
      slider.min = String(Math.min(first, live.revision));
      slider.max = String(live.revision);
      slider.value = String(view.revision ?? live.revision);
      $('#slider-label').textContent = view.revision === null ? `r${live.revision}` : `r${view.revision} / ${live.revision}`;
      $('#step-back').disabled = Number(slider.value) <= Number(slider.min);
      $('#step-forward').disabled = view.revision === null;
      $('#go-live').disabled = view.revision === null;
    }

    // The known revision nearest to `revision`, at or below it when there is one.
    function knownRevision(revision) {
      let best = null;
      for (const known of timeline.order) { if (known <= revision) best = known; else { if (best === null) best = known; break; } }
      return best ?? revision;
    }

    let sliderTimer = 0;
    $('#timeline-slider').addEventListener('input', (event) => {
      const revision = knownRevision(Number(event.target.value));
      $('#slider-label').textContent = `r${revision}`;
      clearTimeout(sliderTimer);
      sliderTimer = setTimeout(() => travelTo(revision), 120);
    });
    $('#timeline-slider').addEventListener('change', (event) => { clearTimeout(sliderTimer); travelTo(knownRevision(Number(event.target.value))); });
    $('#step-back').addEventListener('click', () => {
      const current = view.revision ?? live.revision;
      const earlier = timeline.order.filter((revision) => revision < current);
      if (earlier.length) travelTo(earlier[earlier.length - 1]);
    });
    $('#step-forward').addEventListener('click', () => {
      if (view.revision === null) return;
      const later = timeline.order.find((revision) => revision > view.revision);
      travelTo(later ?? live.revision);
    });
    $('#go-live').addEventListener('click', goLive);

    // ---------------------------------------------------------------- events

    const MAX_EVENTS = 500;
    const events = { subscription: null, queue: [], frame: 0 };

    async function startEventsWatch() {
      try {
        const result = await call('events.watch', { path: '' });
        events.subscription = result.subscription;
      } catch (error) {
        if (!error.disconnected) addEventNote('events.watch failed: ' + errorText(error));
      }
    }

    function onEvent(params) {
      if (params.subscription !== events.subscription) return;
      events.queue.push(params);
      if (events.queue.length > MAX_EVENTS) events.queue.splice(0, events.queue.length - MAX_EVENTS);
      if (!events.frame) events.frame = requestAnimationFrame(drawEvents);
    }

    function onWatchClosed(params) {
      if (params.subscription === events.subscription) {
        events.subscription = null;
        addEventNote(`the event watch was closed (${params.reason}); watching again`);
        startEventsWatch();
      } else if (params.subscription === live.subscription) {
        rewatch();
      }
    }

    function drawEvents() {
      events.frame = 0;
      const list = $('#events');
      const fragment = document.createDocumentFragment();
      const base = filterPath();
      const only = $('#events-filter').checked;
      for (const params of events.queue.reverse()) {
        const source = params.source || {};
        const item = el('li', 'event');
        item.dataset.sourcePath = source.path ?? '';
        const head = el('div', 'ev-head');
        head.append(el('span', 'rev-n', 'r' + params.revision), el('span', 'ev-type', params.type),
          el('span', 'ev-source', `${source.type || ''} at ${source.path || '/'}`));
        item.append(head, el('code', '', short(params.event, 400)));
        item.hidden = only && !Pointer.within(base, source.path ?? '');
        fragment.append(item);
      }
      events.queue = [];
      list.insertBefore(fragment, list.firstChild);
      while (list.children.length > MAX_EVENTS) list.lastChild.remove();
    }

    function addEventNote(text) {
      const item = el('li', 'event message', text);
      $('#events').insertBefore(item, $('#events').firstChild);
    }

    function filterEvents() {
      const base = filterPath();
      const only = $('#events-filter').checked;
      for (const item of $('#events').children) {
        if (item.dataset.sourcePath !== undefined) item.hidden = only && !Pointer.within(base, item.dataset.sourcePath);
      }
    }
    $('#events-filter').addEventListener('change', filterEvents);

    // ---------------------------------------------------------------- intents

    // The model at or above `pointer` in the live tree: {path, type}, or null.
    function modelAt(pointer) {
      if (live.revision === null || !schema.root) return null;
      let tokens = Pointer.parse(pointer);
      for (;;) {
        const value = lookup(live.value, tokens);
        const type = value !== undefined && isContainer(value) && !Array.isArray(value) ? schema.typeAt(tokens, value) : null;
        if (type) return { path: Pointer.fromTokens(tokens), type };
        if (!tokens.length) return null;
        tokens = tokens.slice(0, -1);
      }
    }

    let intentsKey = null;

    function renderIntents() {
      const box = $('#intents');
      const title = $('#intents-target');
      if (!schema.document) { box.textContent = 'reading rpc.discover…'; intentsKey = null; return; }
      if (tree.selected === null) { title.textContent = 'select a node'; box.textContent = ''; intentsKey = null; return; }
      const model = modelAt(tree.selected);
      // Forms keep what was typed while the same model stays selected.
      const key = model ? `${model.type}@${model.path}` : `all@${tree.selected}`;
      if (key === intentsKey) return;
      intentsKey = key;
      box.textContent = '';
      if (model) {
        title.textContent = `${model.type} at ${model.path || '/'}`;
        const intents = schema.intents[model.type] || {};
        const names = Object.keys(intents).sort();
        if (!names.length) box.append(el('div', 'message', `${model.type} has no intents`));
        for (const name of names) box.append(intentForm(model.type, name, intents[name], model.path, false));
      } else {
        // No type known for this node: every intent, grouped by type, aimed at the node.
        title.textContent = `${tree.selected || '/'} (model type unknown: every intent)`;
        for (const type of Object.keys(schema.intents).sort()) {
          const group = el('div', 'intent-group');
          group.append(el('h3', '', type));
          for (const name of Object.keys(schema.intents[type]).sort()) group.append(intentForm(type, name, schema.intents[type][name], tree.selected, true));
          box.append(group);
        }
      }
      updateIntentAccess();
    }

    function updateIntentAccess() {
      const operator = conn.role === 'operator';
      $('#intents-readonly').hidden = operator;
      for (const fieldset of document.querySelectorAll('form.intent fieldset')) fieldset.disabled = !operator;
      updateUndo();
    }

    function updateUndo() {
      const undo = conn.role === 'operator' && lastStatus && lastStatus.undo;
      $('#undo').disabled = !(undo && undo.canUndo);
      $('#redo').disabled = !(undo && undo.canRedo);
    }

    for (const method of ['undo', 'redo']) {
      $('#' + method).addEventListener('click', () => {
        call('history.' + method).then(refreshStatus).catch((error) => alert(`history.${method}: ${errorText(error)}`));
      });
    }

    function intentForm(type, name, schemas, target, editableTarget) {
      const form = el('form', 'intent');
      form.dataset.intent = name;
      form.dataset.type = type;
      const fieldset = el('fieldset');
      fieldset.append(el('div', 'intent-name', name));
      let targetInput = null;
      if (editableTarget) {
        targetInput = el('input', 'intent-target');
        targetInput.type = 'text';
        targetInput.value = target;
        fieldset.append(el('label', '', 'target'), targetInput);
      }
      const params = schema.resolve((schemas && schemas.params) || {});
      const required = new Set(params.required || []);
      const fields = Object.entries(params.properties || {}).map(([param, node]) => paramField(param, node, required.has(param)));
      for (const field of fields) {
        const label = el('label', '', field.name + (field.required ? '' : '?'));
        label.htmlFor = field.input.id = `intent-${type}-${name}-${field.name}`.replace(/[^A-Za-z0-9_-]/g, '_');
        fieldset.append(label, field.input);
        if (field.hint) fieldset.append(el('span', 'hint', field.hint));
      }
      const actions = el('div', 'actions');
      const submit = el('button', '', 'call');
      submit.type = 'submit';
      const settled = el('input');
      settled.type = 'checkbox';
      settled.className = 'intent-wait';
      const settledLabel = el('label', '', ' wait settled');
      settledLabel.prepend(settled);
      actions.append(submit, settledLabel);
      fieldset.append(actions);
      const result = el('div', 'intent-result');
      form.append(fieldset, result);
      form.addEventListener('submit', (event) => {
        event.preventDefault();
        const values = {};
        try {
          for (const field of fields) {
            const read = field.read();
            if (read.has) values[field.name] = read.value;
          }
        } catch (error) {
          showResult(result, 'error', error.message);
          return;
        }
        const at = targetInput ? targetInput.value.trim() : target;
        const request = { intent: name, params: values };
        if (at !== '') request.target = at;
        if (settled.checked) request.wait = 'settled';
        showResult(result, 'pending', 'calling…');
        call('intent.call', request).then((reply) => {
          const extra = reply.result === null || reply.result === undefined ? '' : '\n' + JSON.stringify(reply.result, null, 2);
          showResult(result, 'ok', `revision ${reply.revision}${extra}`);
        }).catch((error) => showResult(result, 'error', errorText(error)));
      });
      return form;
    }

    function showResult(element, status, text) {
      element.dataset.status = status;
      element.textContent = text;
    }

    // One input for a parameter from its JSON Schema: `read()` gives {has, value} or throws.
    function paramField(name, node, required) {
      node = schema.resolve(node || {});
      let nullable = false;
      for (const key of ['anyOf', 'oneOf']) {
        const branches = Array.isArray(node[key]) ? node[key] : null;
        if (branches && branches.length === 2 && branches.some((branch) => branch.type === 'null')) {
          nullable = true;
          node = schema.resolve(branches.find((branch) => branch.type !== 'null'));
        }
      }
      let type = node.type;
      if (Array.isArray(type)) {
        if (type.includes('null')) nullable = true;
        type = type.filter((item) => item !== 'null');
        type = type.length === 1 ? type[0] : undefined;
      }
      const optional = !required || nullable;
      const hint = [node.description, node.pattern && `pattern ${node.pattern}`, node.format].filter(Boolean).join('; ');
      const field = { name, required, hint };
      const absent = (what) => {
        if (optional) return { has: false };
        throw new Error(`${name} is required (${what})`);
      };

      if (Array.isArray(node.enum)) {
        const select = el('select');
        select.name = name;
        if (optional) select.append(el('option', '', ''));
        node.enum.forEach((choice, index) => {
          const option = el('option', '', typeof choice === 'string' ? choice : JSON.stringify(choice));
          option.value = String(index);
          select.append(option);
        });
        field.input = select;
        field.read = () => select.value === '' ? absent('a choice') : { has: true, value: node.enum[Number(select.value)] };
      } else if (type === 'boolean' && !optional) {
        const box = el('input');
        box.type = 'checkbox';
        box.name = name;
        field.input = box;
        field.read = () => ({ has: true, value: box.checked });
      } else if (type === 'boolean') {
        const select = el('select');
        select.name = name;
        for (const choice of ['', 'true', 'false']) select.append(el('option', '', choice));
        field.input = select;
        field.read = () => select.value === '' ? absent('true or false') : { has: true, value: select.value === 'true' };
      } else if (type === 'integer' || type === 'number') {
        const input = el('input');
        input.type = 'number';
        input.name = name;
        input.step = type === 'integer' ? '1' : 'any';
        if (node.minimum !== undefined) input.min = node.minimum;
        if (node.maximum !== undefined) input.max = node.maximum;
        field.input = input;
        field.read = () => {
          if (input.value.trim() === '') return absent(`a ${type}`);
          const value = Number(input.value);
          if (!Number.isFinite(value) || (type === 'integer' && !Number.isInteger(value))) throw new Error(`${name} must be ${type === 'integer' ? 'an integer' : 'a number'}`);
          return { has: true, value };
        };
      } else if (type === 'string') {
        const input = el('input');
        input.type = 'text';
        input.name = name;
        input.spellcheck = false;
        if (node.pattern) input.placeholder = node.pattern;
        field.input = input;
        // An empty optional string is left out (its default applies); a required one is sent empty.
        field.read = () => input.value === '' && optional ? { has: false } : { has: true, value: input.value };
      } else {
        const area = el('textarea');
        area.name = name;
        area.rows = 2;
        area.spellcheck = false;
        area.placeholder = 'JSON' + (type ? ` (${type})` : '');
        field.input = area;
        field.hint = [field.hint, `JSON: ${short(node, 120)}`].filter(Boolean).join('; ');
        field.read = () => {
          if (area.value.trim() === '') return absent('JSON');
          try { return { has: true, value: JSON.parse(area.value) }; } catch (error) { throw new Error(`${name} is not JSON: ${error.message}`); }
        };
      }
      return field;
    }

    // ---------------------------------------------------------------- token and start

    $('#token').value = storedToken();
    $('#connect').addEventListener('click', () => {
      const token = $('#token').value.trim();
      if (token) sessionStorage.setItem(TOKEN_KEY, token);
      else sessionStorage.removeItem(TOKEN_KEY);
      conn.tokenRejected = false;
      conn.checkingToken = false;
      $('#token-status').textContent = '';
      conn.attempt = 0;
      const old = conn.ws;
      conn.ws = null;
      if (old) {
        old.onclose = null;
        old.close();
        onClosedQuietly();
      }
      connect();
    });
    $('#token').addEventListener('keydown', (event) => { if (event.key === 'Enter') $('#connect').click(); });

    // Ends what the old connection had running, without a reconnect of its own.
    function onClosedQuietly() {
      clearInterval(conn.statusTimer);
      for (const { reject } of conn.pending.values()) reject(Object.assign(new Error('the connection closed'), { disconnected: true }));
      conn.pending.clear();
      conn.opened = false;
      conn.role = null;
      live.subscription = null;
      events.subscription = null;
      updateIntentAccess();
    }

    window.addEventListener('error', (event) => { $('#tree-note').textContent = 'page error: ' + event.message; });
    updateMode();
    connect();
    </script>
    </body>
    </html>
    """#
}
