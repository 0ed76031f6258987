/** One code of the error catalogue (src/platform/http/errorCatalogue.ts): its status, meaning, example and the errors it answers. */
export interface ErrorEntry {
  status: number;
  /** What the code means, for the document (the code itself is prefixed there). */
  description: string;
  example: { message: string; details?: unknown };
  /** Which use-case errors this code answers, and what to show of them. */
  from?: {
    matches: (err: unknown) => boolean;
    details?: (err: never) => unknown;
    headers?: (err: never) => Record<string, string>;
    /** The message a client sees, when not the error's own (never a dependency's internals). */
    message?: string;
  };
  /** Response headers every answer with this code carries. */
  headers?: readonly ('Retry-After' | 'WWW-Authenticate')[];
}
