/** The committed icons are exactly what tray-icons.ts draws, and each state looks different. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { drawTrayIcon, iconFileName, iconsDir, ICON_SIZES, ICON_STATES } from './tray-icons.js';

test('resources/icons holds the generated icons (node dist/app/electron/generate-icons.js)', () => {
  for (const state of ICON_STATES) {
    for (const size of ICON_SIZES) {
      const file = join(iconsDir(), iconFileName(state, size));
      const onDisk = PNG.sync.read(readFileSync(file));
      const drawn = drawTrayIcon(state, size);
      assert.equal(onDisk.width, size, file);
      assert.ok(Buffer.compare(onDisk.data, drawn.data) === 0, `${file} differs from what tray-icons.ts draws`);
    }
  }
});

test('the states differ in colour and in shape', () => {
  const size = 32;
  const icons = Object.fromEntries(ICON_STATES.map((s) => [s, drawTrayIcon(s, size)]));
  const centre = (png: PNG, x: number, y: number) => [...png.data.subarray((y * size + x) * 4, (y * size + x) * 4 + 4)];
  // The corner is transparent (rounded), the edge is the state's colour.
  for (const state of ICON_STATES) assert.equal(centre(icons[state], 0, 0)[3], 0, `${state} corner`);
  const edge = ICON_STATES.map((s) => centre(icons[s], 2, 16).slice(0, 3).join(','));
  assert.equal(new Set(edge).size, ICON_STATES.length, 'four colours');
  // White pixels (the glyph) are laid out differently for idle, busy and dead.
  const glyph = (png: PNG) => Array.from({ length: size * size }, (_, i) => (png.data[i * 4] > 200 && png.data[i * 4 + 1] > 200 && png.data[i * 4 + 2] > 200 ? 1 : 0)).join('');
  assert.notEqual(glyph(icons.idle), glyph(icons.busy));
  assert.notEqual(glyph(icons.idle), glyph(icons.dead));
  assert.notEqual(glyph(icons.busy), glyph(icons.dead));
});
