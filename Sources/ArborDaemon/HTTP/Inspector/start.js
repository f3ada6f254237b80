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
