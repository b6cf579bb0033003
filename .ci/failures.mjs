#!/usr/bin/env node
/**
 * Prints the failing tests of one CI pass from its whole log, so that a failure seen once can be
 * read at the end of CI's output (.ci/run calls it for each failed pass):
 *   - node's spec reporter (Node ≥ 23 by default, or --test-reporter=spec): its "failing tests"
 *     section, which ends the run's output;
 *   - node's TAP reporter (Node 20 when its output is not a terminal): every `not ok` test with
 *     the suites and file it sits in and its whole YAML block (error, stack, location);
 *   - anything else (a build error, a setup that failed): the last 200 lines.
 *
 *   node .ci/failures.mjs <log file>
 */
import { readFileSync } from 'node:fs';

const file = process.argv[2];
if (!file) {
  console.error('usage: node .ci/failures.mjs <log file>');
  process.exit(2);
}
const text = readFileSync(file, 'utf8');
const lines = text.split('\n');

const specStart = text.lastIndexOf('✖ failing tests:');
if (specStart >= 0) {
  process.stdout.write(text.slice(specStart));
  process.exit(0);
}

const indentOf = (line) => line.length - line.trimStart().length;
/** Open `# Subtest:` names by indentation, so each failure says where it sits. */
const subtests = [];
const printed = [];
for (let i = 0; i < lines.length; i++) {
  const line = lines[i];
  const subtest = /^(\s*)# Subtest: (.*)$/.exec(line);
  if (subtest) {
    const indent = subtest[1].length;
    while (subtests.length && subtests.at(-1).indent >= indent) subtests.pop();
    subtests.push({ indent, name: subtest[2] });
    continue;
  }
  const notOk = /^(\s*)not ok \d+ - (.*)$/.exec(line);
  if (!notOk) continue;
  const indent = notOk[1].length;
  const block = [];
  let j = i + 1;
  if (lines[j]?.trim() === '---') {
    for (; j < lines.length; j++) {
      block.push(lines[j]);
      if (lines[j].trim() === '...' && indentOf(lines[j]) === indent + 2) break;
    }
  }
  // A suite or file that failed only because a test in it did adds nothing to the test's own block.
  if (block.some((l) => /failureType: 'subtestsFailed'/.test(l))) continue;
  const where = subtests.filter((s) => s.indent < indent).map((s) => s.name);
  printed.push(`✖ ${[...where, notOk[2]].join(' › ')}\n${block.map((l) => l.slice(Math.min(indent, indentOf(l)))).join('\n')}`);
}
if (printed.length) {
  console.log(`${printed.length} failing test(s):\n`);
  console.log(printed.join('\n\n'));
} else {
  console.log(`(no failing test found in the log; its last 200 lines follow)\n`);
  console.log(lines.slice(-200).join('\n'));
}
