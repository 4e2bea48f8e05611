import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { AppError, type ErrorCode } from '../../src/domain/errors.js';
import { MediaStore } from '../../src/media/store.js';

/** A store in a fresh temp directory. */
export function tempStore(publicUrl = 'http://media.test/media'): { store: MediaStore; dir: string; cleanup: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'alertbridge-media-'));
  const store = new MediaStore({ dir, publicUrl });
  return { store, dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** Every entry in the store directory (temp files included). */
export function listDir(dir: string): string[] {
  return fs.readdirSync(dir).sort();
}

/** Awaits a promise that must reject with an AppError of `code`; returns the error. */
export async function expectAppError(p: Promise<unknown>, code: ErrorCode, detail?: RegExp): Promise<AppError> {
  let caught: unknown;
  try {
    await p;
  } catch (err) {
    caught = err;
  }
  expect(caught, `expected AppError(${code})`).toBeInstanceOf(AppError);
  const e = caught as AppError;
  expect(e.code, e.detail).toBe(code);
  if (detail) expect(e.detail).toMatch(detail);
  return e;
}
