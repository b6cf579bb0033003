/**
 * Writes the tray and window icons to resources/icons/. Run after changing tray-icons.ts:
 *
 *   npx tsc -p tsconfig.json && node dist/app/electron/generate-icons.js
 *
 * tray-icons.test.ts fails while the files on disk differ from what this would write.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { drawTrayIcon, encodeIcon, iconFileName, iconsDir, ICON_SIZES, ICON_STATES } from './tray-icons.js';

const dir = iconsDir();
mkdirSync(dir, { recursive: true });
for (const state of ICON_STATES) {
  for (const size of ICON_SIZES) {
    const file = join(dir, iconFileName(state, size));
    writeFileSync(file, encodeIcon(drawTrayIcon(state, size)));
    process.stdout.write(`${file}\n`);
  }
}
