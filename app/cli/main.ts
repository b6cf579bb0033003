#!/usr/bin/env node
/**
 * python-session-mcp: with no arguments, the MCP stdio shim every client runs
 * (kept light: subcommands are imported only when named).
 */
const USAGE = `Usage: python-session-mcp [command]

  (no command)                       MCP server on stdio (what MCP clients run)
  serve [--background]               run the daemon in the foreground; prints the panel URL
  stop                               stop the daemon
  status [--json]                    daemon, sessions and kernels
  interpreters [--json]              Python interpreters found, and the one chosen
  register <client>|all [--remove]   add Python Session to Claude Desktop, Claude Code, Codex, Cursor, Gemini CLI,
                                     VS Code, Windsurf (register --help: where each config is)
  servers [list|add|remove]          remote Jupyter servers sessions can run on
                                     (servers add <name> <url> [--token T | --token-stdin])
  export <session> <file.ipynb|.py>   write a session's record as a notebook that re-runs (.py: a percent script)
  help                               this text
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case undefined:
      await (await import('./shim.js')).runShim();
      return 0;
    case 'serve':
      return (await import('./commands/serve.js')).serveCommand(rest);
    case 'stop':
      return (await import('./commands/stop.js')).stopCommand(rest);
    case 'status':
      return (await import('./commands/status.js')).statusCommand(rest);
    case 'interpreters':
      return (await import('./commands/interpreters.js')).interpretersCommand(rest);
    case 'register':
      return (await import('./commands/register.js')).registerCommand(rest);
    case 'export':
      return (await import('./commands/export.js')).exportCommand(rest);
    case 'servers':
      return (await import('./commands/servers.js')).serversCommand(rest);
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE);
      return 0;
    case '--version':
    case '-v':
      process.stdout.write(`${(await import('../core/package-root.js')).packageVersion()}\n`);
      return 0;
    default:
      process.stderr.write(`Unknown command "${command}".\n\n${USAGE}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== 0 || process.argv.length > 2) process.exitCode = code;
  },
  (error: Error) => {
    process.stderr.write(`python-session-mcp: ${error.message}\n`);
    process.exitCode = 1;
  },
);
