/** Paths people type: `~` and `~/x` mean their home folder, as in a shell. */
import { homedir } from 'node:os';

export function expandHome(path: string): string {
  return path.replace(/^~(?=$|[\\/])/, homedir());
}
