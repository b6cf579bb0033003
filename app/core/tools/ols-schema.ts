/**
 * ols's answer, declared as its outputSchema: the contract's fields at full double precision.
 * A statistic that cannot be computed (a perfect fit's F, say) is null. The helper adds more
 * (EViews' scaled criteria, the covariance used, notes); the object is loose so they pass through.
 */
import { z } from 'zod';

const stat = z.number().nullable();
const test = (fields: Record<string, z.ZodType>) => z.looseObject(fields).nullable();

export const OLS_SCHEMA = z.looseObject({
  nobs: z.number(),
  df_model: z.number(),
  df_resid: z.number(),
  params: z.array(z.looseObject({ name: z.string(), coef: stat, std_err: stat, t: stat, p: stat })),
  r_squared: stat,
  adj_r_squared: stat,
  f_statistic: stat,
  f_pvalue: stat,
  log_likelihood: stat,
  aic: stat,
  bic: stat,
  durbin_watson: stat,
  breusch_godfrey: test({ lags: z.number().int(), lm: stat, lm_pvalue: stat, f: stat, f_pvalue: stat }),
  jarque_bera: test({ statistic: stat, pvalue: stat, skew: stat, kurtosis: stat }),
  white: test({ lm: stat, lm_pvalue: stat }),
  breusch_pagan: test({ lm: stat, lm_pvalue: stat }),
  notes: z.array(z.string()).optional(),
  warnings: z.array(z.string()).optional(),
  printed: z.string().optional(),
});
