/** The panel's record of looks: how long a look counts, and a page following the events. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { PanelLooks, WATCH_MS } from './looks.js';

function clock() {
  let t = 1_000_000;
  return { now: () => t, pass: (ms: number) => (t += ms) };
}

test('a look counts for WATCH_MS, per subject', () => {
  const time = clock();
  const looks = new PanelLooks(time.now);
  assert.equal(looks.present(), false, 'nobody has looked yet');
  looks.saw('variables:a');
  assert.equal(looks.recently('variables:a'), true);
  assert.equal(looks.recently('variables:b'), false);
  assert.equal(looks.present(), false, 'a subject of its own is not a page request');
  looks.saw();
  assert.equal(looks.present(), true);
  time.pass(WATCH_MS - 1);
  assert.equal(looks.present(), true);
  assert.equal(looks.recently('variables:a'), true);
  time.pass(1);
  assert.equal(looks.present(), false);
  assert.equal(looks.recently('variables:a'), false);
  looks.saw('variables:a');
  looks.forget('variables:a');
  assert.equal(looks.recently('variables:a'), false);
});

test('a page following the events is present until its stream closes, however long that is', () => {
  const time = clock();
  const looks = new PanelLooks(time.now);
  const first = new EventEmitter() as IncomingMessage;
  const second = new EventEmitter() as IncomingMessage;
  looks.follow(first);
  looks.follow(second);
  time.pass(10 * WATCH_MS);
  assert.equal(looks.present(), true);
  first.emit('close');
  assert.equal(looks.present(), true, 'one page still follows');
  second.emit('close');
  second.emit('close');
  assert.equal(looks.present(), false, 'closed twice counts once');
});
