/**
 * Python's jupyter_client driving the same interpreter: the baseline every ratio in the
 * benchmarks is taken against. It runs as a child process that takes one command at a time,
 * so the Node side interleaves its measurements with the baseline's and both meet the same
 * load on a shared machine (one run after the other, the ratio would mostly measure that).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const script = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..', 'bench', 'jupyter_client_baseline.py');

export class JupyterClientBaseline {
  private constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    private readonly answers: AsyncIterator<string>,
    /** Kernel start to ready, through start_new_kernel. */
    readonly startMs: number,
  ) {}

  static async start(python: string): Promise<JupyterClientBaseline> {
    const child = spawn(python, [script], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, PYDEVD_DISABLE_FILE_VALIDATION: '1' } });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => void (stderr = (stderr + chunk.toString()).slice(-4000)));
    const answers = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const first = await answers.next();
    if (first.done) throw new Error(`the jupyter_client baseline did not start:\n${stderr}`);
    return new JupyterClientBaseline(child, answers, (JSON.parse(first.value) as { start_ms: number }).start_ms);
  }

  private async ask<T>(command: string): Promise<T> {
    this.child.stdin.write(`${command}\n`);
    const answer = await this.answers.next();
    if (answer.done) throw new Error(`the jupyter_client baseline ended during "${command}"`);
    return JSON.parse(answer.value) as T;
  }

  async roundtrips(runs: number): Promise<number[]> {
    return (await this.ask<{ ms: number[] }>(`roundtrip ${runs}`)).ms;
  }

  async interrupt(): Promise<number> {
    return (await this.ask<{ ms: number }>('interrupt')).ms;
  }

  /** Seconds to print 10 MB (OUTPUT_10MB) and receive all of it. */
  async output(): Promise<number> {
    return (await this.ask<{ s: number }>('output')).s;
  }

  async close(): Promise<void> {
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.stdin.end('quit\n');
    await exited;
  }
}

/**
 * `ours` and `theirs` measured in alternating blocks of `block` samples, `total` of each.
 * Returns both sample lists.
 */
export async function interleaved(total: number, block: number, ours: (n: number) => Promise<number[]>, theirs: (n: number) => Promise<number[]>): Promise<{ ours: number[]; theirs: number[] }> {
  const result = { ours: [] as number[], theirs: [] as number[] };
  for (let done = 0; done < total; done += block) {
    const n = Math.min(block, total - done);
    result.ours.push(...(await ours(n)));
    result.theirs.push(...(await theirs(n)));
  }
  return result;
}
