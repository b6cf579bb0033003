/** An execution's result as MCP content: text and images in print order, errors last. */
import type { ExecutionResult } from '../kernel/outputs.js';
import type { SavedFigure } from '../sessions/figure-store.js';
import { IMAGE_TYPES } from '../sessions/figure-store.js';
import { figureContent, type ImageContent, type TextContent } from './image-content.js';

export function runContent(result: ExecutionResult, figures: SavedFigure[], timeoutS?: number): (TextContent | ImageContent)[] {
  const content: (TextContent | ImageContent)[] = [];
  let text = '';
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
          if (best) content.push(...figureContent(best));
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
  if (result.timedOut) {
    text += `${text && !text.endsWith('\n') ? '\n' : ''}Timed out after ${timeoutS ?? '?'} s; the run was interrupted${result.restarted ? ' and, as it would not stop, the kernel was restarted (variables lost)' : ''}. Above is what it printed.`;
  } else if (result.restarted) {
    text += `${text && !text.endsWith('\n') ? '\n' : ''}The run would not stop when interrupted, so the kernel was restarted; every variable was lost.`;
  } else if (result.error) {
    text += `${text && !text.endsWith('\n') ? '\n' : ''}${result.error.message}`;
  } else if (result.interrupted) {
    text += `${text && !text.endsWith('\n') ? '\n' : ''}Interrupted.`;
  }
  flush();
  if (content.length === 0) content.push({ type: 'text', text: '(no output)' });
  return content;
}
