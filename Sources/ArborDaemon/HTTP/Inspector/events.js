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
    // Long names are cut by the layout: the whole name is the tooltip.
    const type = el('span', 'ev-type', params.type);
    type.title = params.type;
    const from = el('span', 'ev-source', `${source.type || ''} at ${source.path || '/'}`);
    from.title = from.textContent;
    head.append(el('span', 'rev-n', 'r' + params.revision), type, from);
    item.append(head, el('code', '', short(params.event, 400)));
    item.hidden = only && !Pointer.within(base, source.path ?? '');
    fragment.append(item);
  }
  events.queue = [];
  $('#events-empty')?.remove();
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
