/**
 * Issue #22 benchmark: the panel's Variables view and data viewer, through the path the panel
 * takes (callHelper on the session's kernel, from this process as from the daemon), against
 * pandas' own `df.iloc[a:b].to_json()` in the same kernel and run.
 * `node --expose-gc dist/bench/workspace.js [python]`; writes bench/results/workspace.json.
 *
 * - `variables` on 5,000 names (goal ≤ 150 ms), beside a `1+1` round trip;
 * - a 1,000,000 × 20 DataFrame: the first page (goal ≤ 300 ms), later pages (≤ 100 ms), a sort
 *   by one float column, first time (≤ 1.5 s) and its later pages; a sort by a string column and
 *   a filter across the columns in view, for reference;
 * - this process's memory growth after paging through the whole frame, 500 rows a page
 *   (goal < 20 MB), and the kernel's;
 * - the baseline: `df.iloc[a:b].to_json()` timed inside Python, and the same page fetched as an
 *   execute result over the same kernel connection.
 */
import { cpus, totalmem } from 'node:os';
import { KernelSupervisor, LocalProvisioner } from '../app/core/kernel/kernel.js';
import { callHelper } from '../app/core/sessions/helper-bridge.js';
import { writeBenchResult } from './results-file.js';
import { median, quantile, repeat, timed } from './stats.js';

const python = process.argv[2] || process.env.PYTHON_SESSION_TEST_PYTHON || '/usr/bin/python3';
const ROWS = 1_000_000;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const s = (values: number[], digits = 1) => `${median(values).toFixed(digits)} (${quantile(values, 0.1).toFixed(digits)}–${quantile(values, 0.9).toFixed(digits)})`;
const gc = (globalThis as { gc?: () => void }).gc;

interface PageArgs {
  offset?: number;
  limit?: number;
  sort?: { column: string; ascending: boolean }[];
  filter?: { text: string; column: string | null } | null;
}

const kernel = await KernelSupervisor.start(new LocalProvisioner({ interpreter: python }));
const page = (args: PageArgs) => callHelper<{ rows: unknown[][]; filtered_rows: number; elapsed_ms: number }>(kernel, 'data_page', { expression: 'big', limit: 100, ...args });
const randomOffset = (rows: number) => Math.floor(Math.random() * (rows - 500));
const kernelRss = async () => Number((await callHelper<{ value: number }>(kernel, 'value', { expression: "int(open('/proc/self/status').read().split('VmRSS:')[1].split()[0]) * 1024" })).structured!.value);

try {
  process.stderr.write('variables on 5,000 names…\n');
  await kernel.execute(
    [
      'for _i in range(5000):',
      "    globals()['v%04d' % _i] = (_i, _i * 0.5, 'text %d' % _i, [_i] * 3, {'k': _i})[_i % 5]",
      'del _i',
    ].join('\n'),
  );
  await callHelper(kernel, 'variables', {});
  const roundTrip = await repeat(20, () => timed(() => kernel.execute('1+1', { storeHistory: false })));
  const pythonMs: number[] = [];
  const variables = await repeat(20, () =>
    timed(async () => {
      const answer = await callHelper<{ count: number; elapsed_ms: number }>(kernel, 'variables', {});
      pythonMs.push(answer.structured!.elapsed_ms);
    }),
  );

  process.stderr.write('a 1,000,000 × 20 DataFrame…\n');
  const built = await kernel.execute(
    [
      'import numpy as np, pandas as pd',
      'rng = np.random.default_rng(0)',
      `big = pd.DataFrame({'f%d' % i: rng.normal(size=${ROWS}) for i in range(17)})`,
      `big['qty'] = rng.integers(0, 1000, ${ROWS})`,
      `big['region'] = pd.Series(rng.choice(['north', 'south', 'east', 'west'], ${ROWS}), dtype=object)`,
      `big['when'] = pd.date_range('2000-01-01', periods=${ROWS}, freq='min')`,
      'del rng',
    ].join('\n'),
  );
  if (built.status !== 'ok') throw new Error(`building the frame failed: ${JSON.stringify(built.error)}`);
  const firstPage = await timed(() => page({ offset: 0 }));
  const firstPages = await repeat(10, () => timed(() => page({ offset: 0 })));
  // Later pages alternate with the baseline, the same rows as pandas' to_json() fetched as an
  // execute result over the same connection, so that both meet the same load.
  const laterPages: number[] = [];
  const laterPagesPython: number[] = [];
  const toJsonRoundTrip: number[] = [];
  for (let i = 0; i < 30; i++) {
    const offset = randomOffset(ROWS);
    laterPages.push(await timed(async () => laterPagesPython.push((await page({ offset })).structured!.elapsed_ms)));
    toJsonRoundTrip.push(await timed(() => kernel.execute(`big.iloc[${offset}:${offset + 100}].to_json()`, { storeHistory: false })));
  }
  // Each sort on a column not sorted before: the first time, every time.
  const sortFirst: number[] = [];
  for (let i = 1; i <= 5; i++) sortFirst.push(await timed(() => page({ sort: [{ column: `f${i}`, ascending: i % 2 === 0 }] })));
  const sortedPages = await repeat(30, () => timed(() => page({ offset: randomOffset(ROWS), sort: [{ column: 'f5', ascending: false }] })));
  const sortText = await timed(() => page({ sort: [{ column: 'region', ascending: true }] }));
  const sortTime = await timed(() => page({ sort: [{ column: 'when', ascending: false }] }));
  let matched = 0;
  const filterFirst = await timed(async () => (matched = (await page({ filter: { text: 'north', column: null } })).structured!.filtered_rows));
  const filteredPages = await repeat(30, () => timed(() => page({ offset: randomOffset(matched), filter: { text: 'north', column: null } })));

  process.stderr.write('paging through the whole frame, 500 rows a page…\n');
  gc?.();
  const before = process.memoryUsage();
  const kernelBefore = await kernelRss();
  let peakRss = before.rss;
  const wholePages: number[] = [];
  // RSS at each tenth of the way: a plateau is the allocator's high-water mark, a slope a leak.
  const rssByTenth: number[] = [];
  for (let offset = 0; offset < ROWS; offset += 500) {
    wholePages.push(await timed(() => page({ offset, limit: 500 })));
    if (offset % 50_000 === 0) peakRss = Math.max(peakRss, process.memoryUsage().rss);
    if ((offset + 500) % (ROWS / 10) === 0) {
      gc?.();
      rssByTenth.push(process.memoryUsage().rss);
    }
  }
  gc?.();
  const after = process.memoryUsage();
  const kernelAfter = await kernelRss();

  process.stderr.write("pandas' own df.iloc[a:b].to_json() …\n");
  const inPython = (limit: number) =>
    callHelper<{ value: number[] }>(kernel, 'value', {
      expression: `[(lambda t, o: (big.iloc[o:o + ${limit}].to_json(), (__import__('time').perf_counter() - t) * 1000)[1])(__import__('time').perf_counter(), o) for o in __import__('random').sample(range(${ROWS - 500}), 30)]`,
    });
  const toJson100 = (await inPython(100)).structured!.value;
  const toJson500 = (await inPython(500)).structured!.value;
  const helperPage500 = wholePages;

  const rows: [string, string, string][] = [
    ['`variables`, 5,000 names, end to end (ms)', s(variables), `Python side ${s(pythonMs)}; \`1+1\` round trip ${s(roundTrip, 2)}; goal ≤ 150 ms`],
    ['first page, 100 rows × 20 columns (ms)', `${firstPage.toFixed(1)} first; ${s(firstPages)} again`, 'goal ≤ 300 ms'],
    ['later page, 100 rows at a random offset (ms)', s(laterPages), `Python side ${s(laterPagesPython)}; goal ≤ 100 ms`],
    ['sort by one float column, first time (ms)', s(sortFirst, 0), 'goal ≤ 1.5 s'],
    ['later page of that sort (ms)', s(sortedPages), 'goal ≤ 100 ms'],
    ['sort by a string column / a datetime column, first time (ms)', `${sortText.toFixed(0)} / ${sortTime.toFixed(0)}`, 'reference'],
    [`filter "north" across the 20 columns, first time / later pages (ms)`, `${filterFirst.toFixed(0)} / ${s(filteredPages)}`, `${matched} rows match`],
    ['page of 500 rows, paging through the whole frame (ms)', s(helperPage500), `${helperPage500.length} pages`],
    ['this process after paging through it all', `RSS ${mb(before.rss)} → ${mb(after.rss)} (${mb(after.rss - before.rss)}), heap used ${mb(before.heapUsed)} → ${mb(after.heapUsed)}, heap total ${mb(before.heapTotal)} → ${mb(after.heapTotal)}, external ${mb(before.external)} → ${mb(after.external)}; RSS at each tenth: ${rssByTenth.map((b) => (b / 1024 / 1024).toFixed(0)).join(', ')} MB`, `goal: growth < 20 MB${gc ? '' : ' (run with --expose-gc for a collected heap)'}`],
    ['the kernel after paging through it all', `RSS ${mb(kernelBefore)} → ${mb(kernelAfter)}`, 'row orders cached, never the data'],
    ["baseline: pandas `df.iloc[a:b].to_json()` in Python, 100 / 500 rows (ms)", `${s(toJson100, 2)} / ${s(toJson500, 2)}`, 'Python alone, no transport'],
    ['baseline: the same 100 rows as a to_json() execute result, end to end, alternating with the pages above (ms)', s(toJsonRoundTrip), `data_page takes ${(median(laterPages) / median(toJsonRoundTrip)).toFixed(2)}× its time`],
  ];
  const table = [
    `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${mb(totalmem())}, Node ${process.version}, Python ${python}; medians (p10–p90).`,
    '',
    '| measure | Python Session | baseline / goal |',
    '| --- | --- | --- |',
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
  console.log(table);
  writeBenchResult('workspace', {
    date: new Date().toISOString(),
    python,
    variables_ms: variables,
    variables_python_ms: pythonMs,
    roundtrip_ms: roundTrip,
    first_page_ms: [firstPage, ...firstPages],
    later_page_ms: laterPages,
    later_page_python_ms: laterPagesPython,
    sort_first_ms: sortFirst,
    sorted_page_ms: sortedPages,
    sort_text_ms: sortText,
    sort_datetime_ms: sortTime,
    filter_first_ms: filterFirst,
    filtered_page_ms: filteredPages,
    page_500_ms: helperPage500,
    memory: { before, after, peak_rss: peakRss, rss_by_tenth: rssByTenth, kernel_before: kernelBefore, kernel_after: kernelAfter, collected: Boolean(gc) },
    baseline: { to_json_100_ms: toJson100, to_json_500_ms: toJson500, to_json_roundtrip_ms: toJsonRoundTrip },
    table,
  });
} finally {
  await kernel.shutdown();
}
