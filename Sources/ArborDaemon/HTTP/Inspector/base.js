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
