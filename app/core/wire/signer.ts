/**
 * HMAC signing of Jupyter messages. The signature covers the four JSON frames
 * (header, parent header, metadata, content) exactly as they travel, so incoming
 * messages are verified against their raw bytes, never a re-serialisation.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

const SUPPORTED = new Map([
  ['hmac-sha256', 'sha256'],
  ['hmac-sha512', 'sha512'],
  ['hmac-sha1', 'sha1'],
]);

export class Signer {
  private readonly algorithm: string | null;

  constructor(
    private readonly key: Buffer,
    scheme = 'hmac-sha256',
  ) {
    const algorithm = SUPPORTED.get(scheme);
    if (!algorithm) throw new Error(`Unsupported signature scheme "${scheme}"`);
    // An empty key means the kernel does not sign (allowed by the spec for trusted setups).
    this.algorithm = key.length > 0 ? algorithm : null;
  }

  get enabled(): boolean {
    return this.algorithm !== null;
  }

  /** Hex digest over the given frames, or '' when signing is disabled. */
  sign(frames: readonly Buffer[]): string {
    if (!this.algorithm) return '';
    const hmac = createHmac(this.algorithm, this.key);
    for (const frame of frames) hmac.update(frame);
    return hmac.digest('hex');
  }

  /** Constant-time check of a received hex signature against the raw frames. */
  verify(signature: Buffer, frames: readonly Buffer[]): boolean {
    if (!this.algorithm) return true;
    const expected = Buffer.from(this.sign(frames), 'ascii');
    return signature.length === expected.length && timingSafeEqual(signature, expected);
  }
}
