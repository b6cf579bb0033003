/**
 * Stream text as a terminal shows it: a carriage return moves back to the start of the line and
 * what follows overwrites it. Progress bars (tqdm, Keras, pip) redraw one line thousands of times;
 * the model and the log get the line's last state instead of every frame.
 */
export function applyCarriageReturns(text: string): string {
  if (!text.includes('\r')) return text;
  return text
    .split('\n')
    .map((line) => {
      if (!line.includes('\r')) return line;
      let shown = '';
      for (const frame of line.split('\r')) shown = frame + shown.slice(frame.length);
      return shown;
    })
    .join('\n');
}
