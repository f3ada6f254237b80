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
    // How many of the revisions the daemon keeps are loaded: "200 of 309 loaded".
    const newest = this.order[this.order.length - 1];
    const kept = this.oldest === null || newest === undefined ? null : newest - this.oldest;
    $('#timeline-note').textContent = !this.order.length ? ''
      : kept !== null && kept > this.order.length ? `${this.order.length} of ${kept} revisions loaded (the oldest kept is ${this.oldest})`
      : `${this.order.length} revisions`;
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
