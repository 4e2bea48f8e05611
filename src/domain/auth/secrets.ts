import { createHash, randomBytes } from 'node:crypto';

/** 32 random bytes, URL-safe: session ids and sign-in link secrets. */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** Only this digest is stored: a leaked database copy yields no usable cookie or link. */
export function digest(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}
