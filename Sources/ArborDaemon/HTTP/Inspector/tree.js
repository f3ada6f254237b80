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
    if (live.revision === null) {
      // Say what is being waited for: the connection, or the state of the revision the
      // header already shows.
      const loading = !conn.opened ? 'connecting…' : lastStatus ? `loading revision ${lastStatus.revision}…` : 'loading the state…';
      return { base, loading };
    }
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
  $('#tree-note').textContent = view.revision !== null ? `at revision ${view.revision}` : live.revision === null ? '' : `revision ${live.revision}`;
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
  // The path typed is the node the Intents panel shows, as a click on it would make it.
  if (text !== '' && tree.selected !== text) select(text);
}
$('#path-filter').addEventListener('input', () => { clearTimeout(filterTimer); filterTimer = setTimeout(applyFilter, 250); });
$('#path-filter').addEventListener('change', () => { clearTimeout(filterTimer); applyFilter(); });
$('#path-filter').addEventListener('keydown', (event) => { if (event.key === 'Enter') { clearTimeout(filterTimer); applyFilter(); } });
