// The DOM helpers the runtime's modules share: the element methods as they were before the
// guard (guard.js) wraps them, an element builder, and waiting for <body> and for the DOM.

import { timed } from './clock.js';
import { d } from './site.js';

export var setAttr = Element.prototype.setAttribute;
export var getAttr = Element.prototype.getAttribute;
export var createElement = Document.prototype.createElement;

// h builds the element tag with attrs (text: its text; on…: a listener) and kids.
export function h(tag, attrs, kids) {
  var el = createElement.call(d, tag);
  for (var k in attrs || {}) {
    var v = attrs[k];
    if (v == null || v === false) continue;
    if (k === 'text') el.textContent = v;
    else if (k.slice(0, 2) === 'on') el.addEventListener(k.slice(2), v);
    else setAttr.call(el, k, v === true ? '' : v);
  }
  (kids || []).forEach(function (c) { if (c) el.appendChild(typeof c === 'string' ? d.createTextNode(c) : c); });
  return el;
}

// whenBody runs fn once <body> exists: at once, or as soon as the parser inserts it (the
// guard's observer calls flushBody, so that the banner is painted with the page's first
// content), at the latest on DOMContentLoaded.
var bodyWaiters = [];
export function whenBody(fn) {
  if (d.body) fn();
  else if (bodyWaiters.push(fn) === 1) d.addEventListener('DOMContentLoaded', timed(flushBody));
}
export function flushBody() {
  if (d.body && bodyWaiters.length) bodyWaiters.splice(0).forEach(function (fn) { fn(); });
}
export function whenReady(fn) {
  if (d.readyState !== 'loading') fn();
  else d.addEventListener('DOMContentLoaded', timed(fn));
}
