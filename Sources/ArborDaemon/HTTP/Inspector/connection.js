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
  // 1012: the daemon hands over to its next process, which serves the same port; come back
  // at once, and the watch resumes from the revision it had.
  if (opened && event.code === 1012) {
    conn.attempt = 0;
    setConn('the daemon is restarting; reconnecting', 'down');
    connect();
    return;
  }
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
  // The tree still waits for the state: it names the revision it is loading.
  if (live.revision === null && view.revision === null) renderTree();
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
