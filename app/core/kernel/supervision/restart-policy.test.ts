/** The restart policy is pure logic: deaths and times in, a decision out. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RestartPolicy } from './restart-policy.js';

test('kernels that die young are replaced up to the limit, then not', () => {
  const policy = new RestartPolicy({ limit: 2, stableMs: 1000 });
  assert.equal(policy.shouldReplace(0, 100), true);
  assert.equal(policy.shouldReplace(100, 300), true);
  assert.equal(policy.shouldReplace(300, 400), false);
});

test('a kernel that lived past the stable window starts the count again', () => {
  const policy = new RestartPolicy({ limit: 1, stableMs: 1000 });
  assert.equal(policy.shouldReplace(0, 100), true);
  assert.equal(policy.shouldReplace(100, 5000), true, 'lived 4.9 s: a stable start');
  assert.equal(policy.shouldReplace(5000, 5100), false);
});

test('a start that failed counts as a young death; a restart by hand resets', () => {
  const policy = new RestartPolicy({ limit: 1, stableMs: 1000 });
  assert.equal(policy.shouldReplace(null), true);
  assert.equal(policy.shouldReplace(null), false);
  policy.reset();
  assert.equal(policy.shouldReplace(null), true);
});
