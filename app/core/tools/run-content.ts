/**
 * An execution's result as tool content: text and images in print order, errors last. It lives
 * with the tools, whose results are already content, so mcp/ imports tools and never the reverse.
 */
import type { ExecutionResult } from '../kernel/execution/outputs.js';
import type { SavedFigure } from '../sessions/figure-store.js';
import { IMAGE_TYPES } from '../sessions/figure-store.js';
import { figureContent, type ImageContent, type TextContent } from './image-content.js';

/**
 * Base64 characters of images one reply may carry. Each image is already capped (image-content.ts),
 * but a loop that draws fifty figures would still make a reply larger than MCP clients accept
 * (10 MB on stdio), and a client hangs up on that; later figures are named, not sent.
 */
export const REPLY_IMAGE_BUDGET = 5_000_000;

export function runContent(result: ExecutionResult, figures: SavedFigure[], timeoutS?: number): (TextContent | ImageContent)[] {
  const content: (TextContent | ImageContent)[] = [];
  let text = '';
  let imageChars = 0;
  const flush = () => {
    if (text) content.push({ type: 'text', text });
    text = '';
  };
  let figureIndex = 0;
  for (const output of result.outputs) {
    switch (output.type) {
      case 'stream':
        text += output.text;
        break;
      case 'execute_result':
      case 'display_data': {
        const images = Object.keys(IMAGE_TYPES).filter((mime) => typeof output.data[mime] === 'string');
        if (images.length) {
          // One bundle may carry PNG and SVG of the same figure: send the best one the model can see.
          const mine = figures.slice(figureIndex, figureIndex + images.length);
          figureIndex += images.length;
          const best = mine.find((f) => f.mimeType === 'image/png') ?? mine.find((f) => f.mimeType !== 'image/svg+xml') ?? mine[0];
          flush();
          if (best) {
            const parts = figureContent(best);
            const size = parts.reduce((n, part) => n + (part.type === 'image' ? part.data.length : 0), 0);
            if (size && imageChars + size > REPLY_IMAGE_BUDGET) {
              const where = best.path ? `saved to ${best.path}` : 'not saved';
              content.push({ type: 'text', text: `[figure ${where}; not sent, as this reply already carries ${(imageChars / 1e6).toFixed(1)} MB of images]` });
            } else {
              imageChars += size;
              content.push(...parts);
            }
          }
          break;
        }
        const plain = output.data['text/plain'];
        if (typeof plain === 'string') text += plain.endsWith('\n') ? plain : `${plain}\n`;
        break;
      }
      case 'omitted':
        text += `\n[… ${output.chars ? `${output.chars} characters of ` : ''}${output.what} left out${output.spillPath ? `; the whole output is in ${output.spillPath}` : ''} …]\n`;
        break;
      case 'error':
        break;
    }
  }
  const lost = result.lostNames?.length ? ` Lost with it: ${result.lostNames.join(', ')}.` : '';
  if (result.timedOut) {
    text += `${text && !text.endsWith('\n') ? '\n' : ''}Timed out after ${timeoutS ?? '?'} s; the run was interrupted${result.restarted ? ' and, as it would not stop, the kernel was restarted (variables lost)' : ''}. Above is what it printed.${lost}`;
  } else if (result.restarted) {
    const why = result.interrupted ? 'The run would not stop when interrupted, so the kernel was restarted' : 'The kernel was restarted while this ran';
    text += `${text && !text.endsWith('\n') ? '\n' : ''}${why}; every variable was lost.${lost}`;
  } else if (result.error) {
    text += `${text && !text.endsWith('\n') ? '\n' : ''}${result.error.message}`;
  } else if (result.interrupted) {
    text += `${text && !text.endsWith('\n') ? '\n' : ''}Interrupted.`;
  }
  flush();
  if (content.length === 0) content.push({ type: 'text', text: '(no output)' });
  return content;
}
