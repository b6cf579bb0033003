/**
 * Cells another Jupyter client ran on this kernel (the person's IDE, `jupyter console
 * --existing`, a `jupyter_client`), assembled from what the kernel broadcasts on iopub: a cell
 * starts with its execute_input, gathers its outputs (bounded as ours are, by an
 * OutputCollector) and ends with its request's idle status. Its reply goes to the client that
 * sent it, so whether it failed is read from its outputs. It is fed only messages whose parent
 * is another client's request; ours are routed by msg_id and never come here.
 */
import type { JupyterMessage } from '../../wire/index.js';
import type { ExecutionResult } from './outputs.js';
import { OutputCollector, type OutputLimits } from './output-collector.js';

export interface ForeignCell {
  /** The other client's request id and session. */
  msgId: string;
  clientSession: string;
  code: string;
  executionCount: number | null;
  /** Epoch ms of its execute_input. */
  startedAt: number;
  result: ExecutionResult;
}

interface OpenCell {
  clientSession: string;
  code: string;
  executionCount: number | null;
  startedAt: number;
  collector: OutputCollector;
  hasError: boolean;
}

/** Cells open at once past which the oldest is ended as it is (a client that never says idle). */
const MAX_OPEN = 8;

const OUTPUT_TYPES = new Set(['stream', 'execute_result', 'display_data', 'update_display_data', 'clear_output', 'error']);

export class ForeignCellAssembler {
  private readonly open = new Map<string, OpenCell>();

  constructor(
    private readonly limits: () => OutputLimits,
    private readonly ended: (cell: ForeignCell) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes one iopub message whose parent is another client's request. */
  take(message: JupyterMessage): void {
    const parentId = message.parent_header.msg_id;
    if (!parentId) return;
    const type = message.header.msg_type;
    const content = message.content as Record<string, unknown>;
    if (type === 'execute_input') {
      if (this.open.size >= MAX_OPEN) this.finish(this.open.keys().next().value!);
      this.open.set(parentId, {
        clientSession: String(message.parent_header.session ?? ''),
        code: String(content.code ?? ''),
        executionCount: typeof content.execution_count === 'number' ? content.execution_count : null,
        startedAt: this.now(),
        collector: new OutputCollector(this.limits()),
        hasError: false,
      });
      return;
    }
    const cell = this.open.get(parentId);
    if (!cell) return; // a request that ran no code (kernel_info, complete, inspect…)
    if (OUTPUT_TYPES.has(type)) {
      if (type === 'error') cell.hasError = true;
      cell.collector.take(message);
    } else if (type === 'status' && content.execution_state === 'idle') {
      this.finish(parentId);
    }
  }

  /** Ends every cell still open with what it printed so far (the connection went, or the kernel did). */
  flush(): void {
    for (const id of [...this.open.keys()]) this.finish(id);
  }

  get openCount(): number {
    return this.open.size;
  }

  private finish(msgId: string): void {
    const cell = this.open.get(msgId);
    if (!cell) return;
    this.open.delete(msgId);
    const result = cell.collector.result({
      content: { status: cell.hasError ? 'error' : 'ok' },
      executionCount: cell.executionCount,
      durationMs: this.now() - cell.startedAt,
      timedOut: false,
      interrupted: false,
      lostNames: null,
    });
    void cell.collector.closeSpill();
    this.ended({ msgId, clientSession: cell.clientSession, code: cell.code, executionCount: cell.executionCount, startedAt: cell.startedAt, result });
  }
}
