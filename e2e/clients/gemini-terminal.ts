/**
 * Gemini CLI as a person starts it: interactive, in a terminal. Node has no terminal of its own
 * to give a child, so Python's standard `pty` module (in the tests' Python) holds one: it starts
 * the client in a folder, waits for the question Gemini CLI asks on starting in a folder with no
 * trust entry, answers the first choice with Enter, waits until Gemini CLI has written its
 * answer, and ends the client's whole process group (Gemini CLI relaunches itself as a child).
 */
import { spawn } from 'node:child_process';
import { TEST_PYTHON } from '../../app/core/testing/test-python.js';

const DRIVER = String.raw`
import json, os, pty, re, select, signal, struct, sys, time, fcntl, termios
argv, cwd, choice, trust_file, folder, limit = json.loads(sys.argv[1])
pid, fd = pty.fork()
if pid == 0:
    os.chdir(cwd)
    os.execvp(argv[0], argv)
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack('HHHH', 40, 120, 0, 0))
def plain(b):
    return re.sub(r'\x1b\[[0-9;?]*[a-zA-Z]|\x1b\][^\x07]*\x07', '', b.decode('utf8', 'replace'))
def written():
    try:
        with open(trust_file) as f:
            return folder in f.read()
    except OSError:
        return False
out = b''
answered = False
# A guard against a hung client, not a timing check: every step below waits on the client.
deadline = time.monotonic() + limit
while time.monotonic() < deadline and not (answered and written()):
    ready, _, _ = select.select([fd], [], [], 0.2)
    if not ready:
        continue
    try:
        data = os.read(fd, 65536)
    except OSError:
        break
    if not data:
        break
    out += data
    if not answered and choice in plain(out):
        os.write(fd, b'\r')
        answered = True
try:
    os.killpg(pid, signal.SIGKILL)
except ProcessLookupError:
    pass
os.waitpid(pid, 0)
print(json.dumps({'asked': answered, 'written': written(), 'screen': plain(out)[-4000:]}))
`;

export interface TrustAnswer {
  /** Whether the question with `choice` was on the screen (and so answered). */
  asked: boolean;
  /** Whether trustedFolders.json then named the folder. */
  written: boolean;
  /** The end of what the terminal showed, without escape codes. */
  screen: string;
}

/** Starts `argv` in `cwd` on a terminal and picks `choice` ("Trust folder (<name>)") when it is offered. */
export function answerTrustQuestion(
  argv: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; choice: string; trustFile: string; folder: string; limitS?: number },
): Promise<TrustAnswer> {
  const args = JSON.stringify([argv, options.cwd, options.choice, options.trustFile, options.folder, options.limitS ?? 90]);
  return new Promise((resolve, reject) => {
    const child = spawn(TEST_PYTHON, ['-c', DRIVER, args], { env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`the terminal driver exited ${code}: ${stderr}`));
      else resolve(JSON.parse(stdout) as TrustAnswer);
    });
  });
}
