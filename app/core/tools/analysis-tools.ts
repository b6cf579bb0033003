/** Data, estimation and chart tools: thin MCP faces over the Python helpers that run in the kernel. */
import { z } from 'zod';
import { helperResult } from './code-tools.js';
import { discoveryMeta } from './tool-discovery.js';
import { REPLACES } from './tool-annotations.js';
import { OLS_SCHEMA } from './ols-schema.js';
import { guarded, sessionArg, type ToolRegistrar } from './tool-context.js';

const path = z.string().min(1).max(4096);
const FORMATS = ['csv', 'tsv', 'excel', 'xlsx', 'xls', 'stata', 'dta', 'parquet', 'spss', 'sav', 'json', 'jsonl'] as const;
const identifier = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a Python identifier');

export const registerAnalysisTools: ToolRegistrar = (server, context) => {
  server.registerTool(
    'load_data',
    {
      title: 'Load a data file',
      description:
        'Load a data file (read a CSV, spreadsheet or dataset) into a pandas DataFrame named `name` in the session: CSV/TSV, Excel (.xlsx, .xls), Stata (.dta), Parquet, SPSS (.sav), JSON and JSON lines, by extension unless `format` says. Reports rows, columns, dtypes and missing values. `options` go to the pandas reader (e.g. {"sep": ";", "encoding": "latin-1", "sheet_name": "Data"}). Nothing is bound if the read fails; a variable of that name is replaced.',
      inputSchema: {
        path: path.describe('File path (~ allowed; relative to the kernel\'s working folder).'),
        name: identifier.describe('Variable name for the DataFrame.'),
        format: z.enum(FORMATS).optional(),
        options: z.record(z.string(), z.unknown()).optional().describe('Keyword arguments for the pandas reader.'),
        session: sessionArg,
      },
      annotations: REPLACES,
      _meta: discoveryMeta('load_data'),
    },
    (args) => guarded(() => helperResult(context, args.session, 'load_data', { path: args.path, name: args.name, format: args.format ?? null, options: args.options ?? {} })),
  );

  server.registerTool(
    'save_data',
    {
      title: 'Save a DataFrame',
      description: 'Write (export) a DataFrame or Series from the session to a file — CSV, Excel, Stata, Parquet, JSON… — by extension unless `format` says. Creates missing folders; replaces a file of the same kind and refuses to overwrite one of a different kind.',
      inputSchema: { name: z.string().min(1).max(1000).describe('Variable holding the DataFrame.'), path, format: z.enum(FORMATS).optional(), session: sessionArg },
      annotations: REPLACES,
      _meta: discoveryMeta('save_data'),
    },
    (args) => guarded(() => helperResult(context, args.session, 'save_data', { name: args.name, path: args.path, format: args.format ?? null })),
  );

  server.registerTool(
    'ols',
    {
      title: 'OLS linear regression',
      description:
        'Linear regression: fit ordinary least squares with statsmodels on a DataFrame in the session and return coefficients (std. errors, t, p), R² and adjusted R², F and its p value, log likelihood, AIC, BIC, Durbin-Watson, Breusch-Godfrey, Jarque-Bera, White and Breusch-Pagan — full precision in structuredContent (EViews-style table in the text). Rows with missing values are dropped and counted. The fitted results stay in the session under `name`.',
      inputSchema: {
        data: z.string().min(1).max(1000).describe('Name of the DataFrame variable.'),
        y: z.string().min(1).describe('Dependent variable column.'),
        x: z.array(z.string().min(1)).min(1).describe('Regressor columns.'),
        add_constant: z.boolean().optional().describe('Add an intercept (default true).'),
        cov_type: z.enum(['nonrobust', 'HC0', 'HC1', 'HC2', 'HC3', 'HAC']).optional().describe('Covariance estimator (default nonrobust).'),
        hac_lags: z.number().int().min(0).max(10_000).optional().describe('Lags for HAC (Newey-West).'),
        bg_lags: z.number().int().min(1).max(10_000).optional().describe('Lags for the Breusch-Godfrey test.'),
        name: identifier.optional().describe('Variable for the fitted results.'),
        session: sessionArg,
      },
      outputSchema: OLS_SCHEMA,
      annotations: REPLACES,
      _meta: discoveryMeta('ols'),
    },
    (args) =>
      guarded(() =>
        helperResult(context, args.session, 'ols', {
          data: args.data,
          y: args.y,
          x: args.x,
          add_constant: args.add_constant ?? true,
          cov_type: args.cov_type ?? 'nonrobust',
          hac_lags: args.hac_lags ?? null,
          bg_lags: args.bg_lags ?? null,
          name: args.name ?? null,
        }, { answer: 'data' }),
      ),
  );

  server.registerTool(
    'save_figure',
    {
      title: 'Save the plot to a file',
      description: 'Save the current matplotlib figure (the latest plot or chart) to a file (PNG, SVG or PDF by extension), creating missing folders and replacing a file of that name. Returns the path and size. Plots drawn by run_python are already shown and kept automatically; use this to write one where the user wants it.',
      inputSchema: { path, dpi: z.number().int().min(10).max(2400).optional(), session: sessionArg },
      annotations: REPLACES,
      _meta: discoveryMeta('save_figure'),
    },
    (args) => guarded(() => helperResult(context, args.session, 'save_figure', { path: args.path, dpi: args.dpi ?? null })),
  );
};
