/**
 * The plain words a model searches a client's deferred tools with, and the tools each must find.
 * Both clients hide MCP tools behind a search (Claude Code's ToolSearch, Codex's tool_search):
 * a tool these words do not find is a tool the model never calls.
 */
import type { ForwardedResult } from './model-script.js';

export const SEARCHES: { query: string; finds: string[] }[] = [
  { query: 'run python code', finds: ['run_python'] },
  { query: 'load a csv', finds: ['load_data'] },
  { query: 'regression', finds: ['ols'] },
  // Either will do: run_python draws the plot, save_figure writes it to a file.
  { query: 'plot', finds: ['save_figure', 'run_python'] },
  { query: 'stop the running code', finds: ['interrupt_kernel'] },
];

/** This server's tools as each client names them: Codex writes the server name with an underscore. */
const OURS = /^mcp__python[-_]session__/;

/**
 * What a search returned, in the client's order: this server's tools by their bare name, anything
 * else by the client's name for it, so a report shows what outranked ours.
 */
export function searchFound(result: ForwardedResult): string[] {
  return result.blocks
    .flatMap((block) => {
      if (block.type === 'tool_reference') return [block.name];
      if (block.type === 'tools') return block.tools.map((t) => (t.namespace ? `${t.namespace}__${t.name}` : t.name));
      return [];
    })
    .map((name) => name.replace(OURS, ''));
}
