/**
 * What each kind of tool may do, as MCP annotations. Clients use these to decide what to ask the
 * person before a call, so they say the worst a tool can do, not the usual case.
 */
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';

/** Looks only: status, listings, the last error. */
export const READS: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, openWorldHint: false };

/** Runs arbitrary code with the user's rights: files, network, processes. */
export const RUNS_CODE: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };

/** Changes the sessions without losing anything: a new kernel, an attachment, a detachment. */
export const ADDS: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };

/** Writes a variable or a file that may already exist; doing it twice gives the same result. */
export const REPLACES: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };

/** Stops running code or ends a kernel: variables can be lost. */
export const ENDS: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false };

/** Talks to a remote Jupyter server the user registered. */
export const REMOTE: ToolAnnotations = { ...ADDS, openWorldHint: true };
