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
