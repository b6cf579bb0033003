/** Sessions and kernels: status, interpreters, start/connect/stop, interrupt, restart, reset. */
import { z } from 'zod';
import { residentBytes } from '../kernel/process/process-stats.js';
import { formatBytes, formatDuration } from '../format.js';
import { listInterpreters, probeInterpreter } from '../interpreters/index.js';
import { describeServers, formatOffers } from '../remote/kernelspecs.js';
import { DEFAULT_SESSION } from '../sessions/session-manager.js';
import type { Session, SessionFacts } from '../sessions/session.js';
import { helperAnswer } from './code-tools.js';
import { firstLine } from './error-words.js';
import { engineLabel, IPYKERNEL_ADDS } from '../sessions/engine-choice.js';
import { discoveryMeta } from './tool-discovery.js';
import { ADDS, ENDS, READS, REMOTE } from './tool-annotations.js';
import { errorResult, guarded, sessionArg, sessionFor, textResult, type ToolContext, type ToolRegistrar } from './tool-context.js';
import { placeLabel } from '../kernel/supervision/provisioner.js';

/** The session's facts as the tools report them (snake_case, in `_meta`; programs and tests read these names). */
async function kernelFacts(session: Session) {
  const facts = session.facts();
  const memory = await residentBytes(facts.pid);
  const uptimeMs = facts.startedAt ? Date.now() - facts.startedAt : null;
  return {
    session: facts.name,
    state: facts.state,
    owned: facts.owned,
    pid: facts.pid ?? null,
    memory_bytes: memory,
    uptime_s: uptimeMs === null ? null : Math.round(uptimeMs / 1000),
    execution_count: facts.executionCount,
    restarts: facts.restarts,
    interpreter: facts.interpreter?.path ?? null,
    interpreter_reason: facts.interpreter?.reason ?? null,
    engine: facts.interpreter?.engine ? { name: facts.interpreter.engine.engine, reason: facts.interpreter.engine.reason, ipykernel_would_add: facts.interpreter.engine.upgrade ?? null } : null,
    connection_file: facts.connectionFile ?? null,
    cwd: facts.cwd ?? null,
    cwd_reason: facts.cwdReason ?? null,
    busy_for_s: facts.running ? Math.round((Date.now() - facts.running.since) / 1000) : null,
    running: facts.running ? { run: facts.running.run, code: facts.running.code, callers_waiting: facts.running.callersWaiting } : null,
    queued_runs: facts.queued,
    variables: facts.variables,
    /** Where the kernel runs: "local", or a remote server's name and URL. */
    location: placeLabel(facts.place),
    remote: remoteFacts(facts),
  };
}

function remoteFacts(facts: SessionFacts) {
  const place = facts.place;
  if (place.kind !== 'remote') return null;
  const c = place.connection;
  return {
    server: place.serverName,
    url: place.serverUrl,
    kernel_id: place.kernelId,
    kernel_name: place.kernelName,
    attach_as: facts.attachAs,
    python_version: facts.kernelInfo?.language_info?.version ?? null,
    connection: c.state,
    connection_since: new Date(c.since).toISOString(),
    connection_problem: c.state === 'connected' ? null : [c.reason, c.lastError].filter(Boolean).join('; ') || null,
  };
}

function describeFacts(f: Awaited<ReturnType<typeof kernelFacts>>): string {
  const busy = f.busy_for_s !== null ? ` for ${f.busy_for_s} s` : '';
  const r = f.remote;
  const up = `up ${f.uptime_s === null ? 'n/a' : formatDuration(f.uptime_s * 1000)}, ${f.execution_count} executions, ${f.restarts} restarts, ${f.variables} variables`;
  return [
    `Session "${f.session}": ${f.state}${busy}${f.owned ? '' : ' (attached kernel, not ours to stop)'}`,
    `  runs on ${f.location}`,
    r
      ? `  remote kernel ${r.attach_as} (kernelspec "${r.kernel_name}", Python ${r.python_version ?? '?'}), ${up}`
      : `  kernel pid ${f.pid ?? 'n/a'}, memory ${formatBytes(f.memory_bytes)}, ${up}`,
    r && r.connection !== 'connected' ? `  connection ${r.connection} since ${r.connection_since}${r.connection_problem ? `: ${r.connection_problem}` : ''}` : '',
    `  interpreter ${f.interpreter ?? 'unknown'}${f.interpreter_reason ? ` — ${f.interpreter_reason}` : ''}`,
    f.engine ? `  engine ${engineName(f.engine.name)} — ${f.engine.reason}${f.engine.ipykernel_would_add ? `\n  ${f.engine.ipykernel_would_add}` : ''}` : '',
    f.running ? `  running${f.running.run ? ` run ${f.running.run}` : ''} for ${f.busy_for_s ?? 0} s, ${f.running.callers_waiting ? `${f.running.callers_waiting} call${f.running.callers_waiting === 1 ? '' : 's'} waiting` : 'no caller waiting'}: ${firstLine(f.running.code)}${f.queued_runs ? `; ${f.queued_runs} more queued` : ''}` : '',
    f.cwd ? `  working folder ${f.cwd}${f.cwd_reason ? ` — ${f.cwd_reason}` : ''} (relative paths resolve here)` : '',
  ]
    .filter(Boolean)
    .join('\n');
}

function engineName(engine: string): string {
  return engine === 'worker' ? 'the built-in worker' : engine;
}

export const registerSessionTools: ToolRegistrar = (server, context: ToolContext) => {
  const { sessions } = context;

  server.registerTool(
    'python_status',
    {
      title: 'Python Session status',
      description:
        'Overview: which Python interpreter runs the code and why it was chosen, its version and key packages (ipykernel, pandas, numpy, statsmodels, matplotlib…), and the session\'s kernel state, pid, memory, uptime and execution count. Call it first when unsure what environment you are in.',
      inputSchema: { session: sessionArg },
      annotations: READS,
      _meta: discoveryMeta('python_status'),
    },
    (args) =>
      guarded(async () => {
        const name = args.session ?? DEFAULT_SESSION;
        const session = sessions.find(name);
        const lines: string[] = [];
        const structured: Record<string, unknown> = { daemon_pid: process.pid, daemon_uptime_s: Math.round((Date.now() - context.startedAt) / 1000) };
        let interpreterPath: string | undefined;
        if (session) {
          const facts = await kernelFacts(session);
          Object.assign(structured, facts);
          if (facts.remote) structured.python_version = facts.remote.python_version;
          lines.push(describeFacts(facts));
          // A remote kernel's Python is on the server: its version comes from the kernel itself.
          interpreterPath = facts.owned && facts.location === 'local' ? session.interpreter?.path : undefined;
        } else {
          try {
            const choice = await sessions.chosenInterpreter();
            interpreterPath = choice.interpreter.path;
            structured.interpreter = interpreterPath;
            structured.interpreter_reason = choice.reason;
            structured.state = 'not started';
            const folder = await context.clientFolder();
            structured.cwd = folder.path;
            structured.cwd_reason = folder.reason;
            lines.push(
              `Session "${name}" is not started${name === DEFAULT_SESSION ? ' (it starts on the first run_python)' : ''}.`,
              `Interpreter for new sessions: ${interpreterPath} — ${choice.reason}`,
              ...(await sessions.engineFor(interpreterPath).then(
                (engine) => [`Engine for new sessions: ${engineName(engine.engine)} — ${engine.reason}${engine.upgrade ? `\n${engine.upgrade}` : ''}`],
                (error: Error) => [`Engine for new sessions: ${error.message}`],
              )),
              `Working folder for new sessions: ${folder.path} — ${folder.reason} (relative paths resolve here)`,
            );
          } catch (error) {
            lines.push(`Session "${name}" is not started, and no usable interpreter was found: ${(error as Error).message}`);
          }
        }
        if (interpreterPath) {
          try {
            const probe = await probeInterpreter(interpreterPath);
            structured.python_version = probe.version;
            structured.platform = probe.platform;
            structured.packages = probe.packages;
            const packages = Object.entries(probe.packages)
              .map(([pkg, version]) => `${pkg} ${version ?? '(missing)'}`)
              .join(', ');
            lines.push(`Python ${probe.version} (${probe.implementation}, ${probe.platform}); ${packages}`);
          } catch (error) {
            lines.push(`Could not probe ${interpreterPath}: ${(error as Error).message}`);
          }
        }
        const pool = await Promise.all(
          (await sessions.pool.describe()).map(async (p) => ({
            ...p,
            memory_bytes: (await Promise.all(p.pids.map(residentBytes))).reduce<number>((sum, bytes) => sum + (bytes ?? 0), 0),
          })),
        );
        structured.warm_pool = pool;
        if (pool.length) {
          lines.push(`Warm pool: ${pool.map((p) => `${p.ready} ready${p.warming ? `, ${p.warming} warming` : ''} for ${p.interpreter} (${formatBytes(p.memory_bytes)})`).join('; ')}`);
        }
        const others = sessions.list().filter((s) => s.name !== name);
        if (others.length) lines.push(`Other sessions: ${others.map((s) => s.facts()).map((f) => `${f.name} (${f.state}${placeLabel(f.place) === 'local' ? '' : `, on ${placeLabel(f.place)}`})`).join(', ')}`);
        try {
          const servers = sessions.servers.list();
          if (servers.length) lines.push(`Remote Jupyter servers: ${servers.map((s) => `${s.name} (${s.url})`).join(', ')} — start_kernel(server=…) runs a session there.`);
        } catch (error) {
          lines.push(`Remote Jupyter servers: ${(error as Error).message}`);
        }
        structured.sessions = sessions.list().map((s) => s.facts()).map((f) => ({ name: f.name, state: f.state, location: placeLabel(f.place) }));
        return textResult(lines.join('\n'), structured);
      }),
  );

  server.registerTool(
    'list_interpreters',
    {
      title: 'List Python interpreters',
      description:
        'List the Python interpreters on this machine (conda base and envs, venvs, pyenv, uv, system), with version, kind, whether ipykernel is installed and so which engine runs code there (ipykernel, or the built-in worker where it is missing), and which one new sessions use and why. Pass one\'s path to start_kernel to use it. ' +
        'Also lists each remote Jupyter server the user added: its kernelspecs (start_kernel(server=…, kernel_name=…)) and the kernels running there (connect_to_kernel(connection_file="<server>:<kernel id>")).',
      inputSchema: {},
      annotations: READS,
    },
    () =>
      guarded(async () => {
        const [found, choice, remotes] = await Promise.all([
          listInterpreters({ env: sessions.env }),
          sessions.chosenInterpreter().catch((e: Error) => e),
          describeServers(sessions.servers).catch((e: Error) => e),
        ]);
        const chosenPath = choice instanceof Error ? undefined : choice.interpreter.path;
        const rows = found.map((i) => ({
          path: i.path,
          kind: i.kind,
          name: i.name,
          version: i.version ?? null,
          ipykernel: i.hasIpykernel === undefined ? 'unknown' : i.hasIpykernel ? 'yes' : 'no',
          engine: engineLabel(i.hasIpykernel, sessions.env.PYTHON_MCP_ENGINE),
          chosen: i.path === chosenPath || i.aliases.includes(chosenPath ?? '\0'),
        }));
        const text = [
          ...rows.map((r) => `${r.chosen ? '*' : ' '} ${r.kind.padEnd(11)} ${r.name.padEnd(18)} ${String(r.version ?? '?').padEnd(8)} ipykernel:${r.ipykernel.padEnd(8)} engine:${r.engine.padEnd(10)} ${r.path}`),
          '',
          `Without ipykernel, code runs on the built-in worker (nothing is installed); ipykernel adds ${IPYKERNEL_ADDS}.`,
          '',
          choice instanceof Error ? `No interpreter can be chosen: ${choice.message}` : `* used for new sessions: ${choice.interpreter.path} — ${choice.reason}`,
          ...(remotes instanceof Error ? ['', `Remote Jupyter servers: ${remotes.message}`] : remotes.length ? ['', 'Remote Jupyter servers:', formatOffers(remotes)] : []),
        ].join('\n');
        return textResult(text, {
          interpreters: rows,
          chosen: chosenPath ?? null,
          reason: choice instanceof Error ? choice.message : choice.reason,
          remote_servers: remotes instanceof Error ? [] : remotes,
        });
      }),
  );

  server.registerTool(
    'list_sessions',
    {
      title: 'List sessions',
      description: 'List the open sessions with their state, interpreter, pid and execution count. Sessions are shared by every client of this daemon.',
      inputSchema: {},
      annotations: READS,
    },
    () =>
      guarded(async () => {
        const facts = await Promise.all(sessions.list().map(kernelFacts));
        const text = facts.length ? facts.map(describeFacts).join('\n') : 'No sessions yet. run_python starts the "default" session.';
        return textResult(text, { sessions: facts });
      }),
  );

  server.registerTool(
    'start_kernel',
    {
      title: 'Start a kernel',
      description:
        'Start a new session\'s kernel, optionally in a given interpreter (a path from list_interpreters), working folder, or installed Jupyter kernelspec (kernel_name). Not needed for the default session, which starts on first use. Returns the interpreter and why it was chosen. ' +
        'With server (a remote Jupyter server the user added; list_interpreters shows them), the kernel runs on that server instead, for data and cores that are there: kernel_name is then one of the server\'s kernelspecs (default: the server\'s default) and cwd a folder relative to the server\'s root. Every tool works the same on it, with the server\'s packages; file paths (load_data, save_data, save_figure) are then paths on the server.',
      inputSchema: {
        interpreter: z.string().min(1).max(4096).optional().describe('Path of the Python to use (see list_interpreters).'),
        cwd: z.string().min(1).max(4096).optional().describe("Working folder for the kernel, where relative paths resolve (default: the client's project folder, else the home folder)."),
        server: z.string().min(1).max(200).optional().describe('Name of a remote Jupyter server (from `python-session-mcp servers add`).'),
        kernel_name: z.string().min(1).max(200).optional().describe('An installed Jupyter kernelspec name, e.g. "python3".'),
        session: sessionArg,
      },
      annotations: REMOTE,
    },
    (args) =>
      guarded(async () => {
        if (args.server) {
          const { startedBy } = await context.startDefaults();
          const session = await sessions.startRemote(args.session ?? DEFAULT_SESSION, { server: args.server, kernelName: args.kernel_name, cwd: args.cwd, startedBy });
          const facts = await kernelFacts(session);
          return textResult(`Started on ${facts.location}.\n${describeFacts(facts)}`, facts);
        }
        // Without cwd, the session works in this client's folder, as the default session does.
        const defaults = await context.startDefaults();
        const place = args.cwd ? { cwd: args.cwd, cwdReason: 'asked for with start_kernel(cwd=…)' } : {};
        const session = await sessions.start(args.session ?? DEFAULT_SESSION, { ...defaults, ...place, interpreter: args.interpreter, kernelName: args.kernel_name });
        const facts = await kernelFacts(session);
        return textResult(`Started.\n${describeFacts(facts)}`, facts);
      }),
  );

  server.registerTool(
    'connect_to_kernel',
    {
      title: 'Attach to a running kernel',
      description:
        'Attach a session to a kernel started elsewhere (Jupyter, JupyterLab, Spyder, `python -m ipykernel`) by its connection file, so you and the person share one namespace. Without connection_file, IPYTHON_MCP_CONNECTION is used. Disconnecting later leaves that kernel running. ' +
        'For a kernel running on a remote Jupyter server, pass "<server>:<kernel id>" instead of a path, e.g. "lab:6f1c…" (list_interpreters lists the kernels running on each server in that form).',
      inputSchema: {
        connection_file: z.string().min(1).max(4096).optional().describe('Path to kernel-*.json (see `jupyter --runtime-dir`), or "<server>:<kernel id>" for a kernel on a remote Jupyter server.'),
        session: sessionArg,
      },
      annotations: REMOTE,
    },
    (args) =>
      guarded(async () => {
        const session = await sessions.connect(args.session ?? DEFAULT_SESSION, args.connection_file);
        const facts = await kernelFacts(session);
        const info = session.facts().kernelInfo;
        return textResult(`Attached to ${info?.implementation ?? 'kernel'} (Python ${info?.language_info?.version ?? '?'}).\n${describeFacts(facts)}`, facts);
      }),
  );

  server.registerTool(
    'disconnect_kernel',
    {
      title: 'Detach from a kernel',
      description: 'Detach a session from a kernel it attached to with connect_to_kernel; the kernel keeps running for its owner. For kernels this tool started, use shutdown_kernel.',
      inputSchema: { session: sessionArg },
      annotations: ADDS,
    },
    (args) =>
      guarded(async () => {
        const name = args.session ?? DEFAULT_SESSION;
        const session = sessions.get(name);
        if (session.facts().owned) return errorResult(`Session "${name}" runs a kernel Python Session started; use shutdown_kernel to end it.`);
        await sessions.close(name);
        return textResult(`Detached session "${name}"; the kernel is still running.`);
      }),
  );

  server.registerTool(
    'kernel_status',
    {
      title: 'Kernel status',
      description: 'State of a session\'s kernel: idle or busy (and for how long), pid, memory, uptime, execution count, restarts, number of variables.',
      inputSchema: { session: sessionArg },
      annotations: READS,
    },
    (args) =>
      guarded(async () => {
        const facts = await kernelFacts(sessions.get(args.session ?? DEFAULT_SESSION));
        return textResult(describeFacts(facts), facts);
      }),
  );

  server.registerTool(
    'interrupt_kernel',
    {
      title: 'Stop the running code',
      description: 'Stop the running code (interrupt it, like Ctrl-C): a run that takes too long, hangs, or was left going. Variables are kept. If it ignores the interrupt (a blocking C call), the kernel is restarted and you are told what was lost.',
      inputSchema: { session: sessionArg },
      annotations: ENDS,
      _meta: discoveryMeta('interrupt_kernel'),
    },
    (args) =>
      guarded(async () => {
        const session = sessions.get(args.session ?? DEFAULT_SESSION);
        const { restarted, wasBusy, lostNames } = await session.interrupt(context.clientName());
        if (restarted) return textResult(`The code ignored the interrupt, so the kernel was restarted. Lost: ${lostNames.join(', ') || 'nothing'}.`, { restarted, lost_names: lostNames });
        return textResult(wasBusy ? 'Interrupted; the session keeps its variables.' : 'Nothing was running; the session is idle.', { restarted, was_busy: wasBusy });
      }),
  );

  server.registerTool(
    'restart_kernel',
    {
      title: 'Restart kernel',
      description: 'Restart a session\'s kernel in the same interpreter: every variable and import is lost. Use it after installing packages or when the state is broken.',
      inputSchema: { session: sessionArg },
      annotations: ENDS,
    },
    (args) =>
      guarded(async () => {
        const session = sessions.get(args.session ?? DEFAULT_SESSION);
        const { lostNames, warning } = await session.restart(context.clientName(), 'restart_kernel');
        const facts = session.facts();
        const where = placeLabel(facts.place) === 'local' ? `pid ${facts.pid}` : `on ${placeLabel(facts.place)}`;
        return textResult(`Restarted (${where}). Lost: ${lostNames.join(', ') || 'nothing'}.${warning ? `\n\n${warning}` : ''}`, { pid: facts.pid ?? null, location: placeLabel(facts.place), lost_names: lostNames });
      }),
  );

  server.registerTool(
    'shutdown_kernel',
    {
      title: 'Shut down kernel',
      description: 'End a session: its kernel process stops and its variables are gone (an attached kernel is only detached). The session log and figures stay on disk.',
      inputSchema: { session: sessionArg },
      annotations: ENDS,
    },
    (args) =>
      guarded(async () => {
        const name = args.session ?? DEFAULT_SESSION;
        const session = await sessions.close(name);
        return textResult(session.facts().owned ? `Session "${name}" was shut down.` : `Session "${name}" was detached; its kernel keeps running.`);
      }),
  );

  server.registerTool(
    'reset_namespace',
    {
      title: 'Clear variables',
      description: 'Delete every user variable in a session (imports included), keeping the kernel. With restart=true, start a fresh kernel instead, which also unloads imported modules.',
      inputSchema: { restart: z.boolean().optional().describe('Start a fresh kernel instead of clearing names.'), session: sessionArg },
      annotations: ENDS,
    },
    (args) =>
      guarded(async () => {
        const name = args.session ?? DEFAULT_SESSION;
        // Without restart, the default session starts on first use, as every helper call does.
        const session = args.restart ? sessions.get(name) : await sessionFor(context, name);
        if (!args.restart) return helperAnswer(() => session.reset(context.clientName(), { waitS: context.settings.waitS(), timeoutMs: context.settings.timeoutS() * 1000 }));
        const outcome = await session.restart(context.clientName(), 'reset_namespace');
        return textResult(`Fresh kernel started; removed ${outcome.lostNames.length} names.${outcome.warning ? `\n\n${outcome.warning}` : ''}`, { restarted: true, removed: outcome.lostNames });
      }),
  );
};
