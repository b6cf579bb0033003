/** What an execution produced, in the order the kernel published it. */
import type { PythonErrorInfo } from './error-text.js';

export type MimeBundle = Record<string, unknown>;

export type Output =
  | { type: 'stream'; name: 'stdout' | 'stderr'; text: string }
  | { type: 'execute_result'; data: MimeBundle; metadata: Record<string, unknown>; executionCount: number | null }
  | { type: 'display_data'; data: MimeBundle; metadata: Record<string, unknown>; displayId?: string }
  | { type: 'error'; ename: string; evalue: string; traceback: string[] }
  /** Stream text left out of memory past the output limit; all of it is in `spillPath`. */
  | { type: 'omitted'; chars: number; spillPath?: string; what: string };

export interface ExecutionResult {
  status: 'ok' | 'error' | 'aborted';
  executionCount: number | null;
  outputs: Output[];
  error?: PythonErrorInfo;
  /** The run went past its time limit and was interrupted. */
  timedOut?: boolean;
  /** The run was interrupted (by request, cancellation or timeout). */
  interrupted?: boolean;
  /** Set when the kernel had to be restarted to stop the run. */
  restarted?: boolean;
  /** With `restarted`: the user's variables that went with the old kernel. */
  lostNames?: string[];
  durationMs: number;
  /** Total characters of stream output, including any that were spilled. */
  streamChars: number;
  /** File holding the whole stream output when it went past the limit. */
  spillPath?: string;
}

/** Plain text of a result as a REPL would print it: streams, text/plain of results, errors. */
export function outputText(outputs: readonly Output[]): string {
  const parts: string[] = [];
  for (const output of outputs) {
    switch (output.type) {
      case 'stream':
        parts.push(output.text);
        break;
      case 'execute_result':
      case 'display_data': {
        const text = output.data['text/plain'];
        if (typeof text === 'string') parts.push(text.endsWith('\n') ? text : `${text}\n`);
        break;
      }
      case 'omitted':
        parts.push(`\n[… ${output.chars} characters of ${output.what} left out${output.spillPath ? `; all of it is in ${output.spillPath}` : ''} …]\n`);
        break;
      case 'error':
        break;
    }
  }
  return parts.join('');
}
