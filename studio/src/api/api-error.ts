/** An answer of the API other than 2xx, in the shape of docs/api.md §2. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extensions: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
  }

  /** The field the error names (`extensions.field`), for showing it next to that field. */
  get field(): string | undefined {
    return typeof this.extensions.field === 'string' ? this.extensions.field : undefined;
  }
}

type ErrorBody = { errors?: { message?: string; extensions?: Record<string, unknown> }[] };

/** Reads the first error of an error answer; an answer that is not the contract's shape keeps its status. */
export async function apiErrorOf(response: Response): Promise<ApiError> {
  return apiErrorOfText(response.status, response.statusText, await response.text());
}

/** The same, from an answer's status and text (an XMLHttpRequest's). */
export function apiErrorOfText(status: number, statusText: string, text: string): ApiError {
  let body: ErrorBody = {};
  try {
    body = JSON.parse(text) as ErrorBody;
  } catch {
    // Not JSON (a proxy's page): the status says enough.
  }
  const first = body.errors?.[0];
  const extensions = first?.extensions ?? {};
  const code = typeof extensions.code === 'string' ? extensions.code : `HTTP_${status}`;
  return new ApiError(status, code, first?.message ?? statusText, extensions);
}
