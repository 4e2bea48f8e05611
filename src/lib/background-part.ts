/** A long-running part of the service (worker, bot, timer) with a clean stop. */
export interface BackgroundPart {
  name: string;
  stop(): Promise<void> | void;
}
