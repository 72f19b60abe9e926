// gemini's API retries, read from its stderr (stream-json has no event for them), and the bound
// the wrapper keeps on them.
//
// gemini 0.61 prints "Attempt 2 failed with status 503. Retrying with backoff... <error>" and a
// stack. The stack tells the chat request (GeminiChat frames; bounded by general.maxAttempts,
// which the wrapper sets to 3) from a side request made through BaseLlmClient (the model router's
// classifier when the model is "auto", the next-speaker check, ...): those take 5 attempts
// whatever general.maxAttempts says (the change that passed the setting on, gemini-cli PR #9518,
// was reverted by #9531), with backoff 5 s, 10 s, 20 s, 30 s: a 503 kept a turn silent ~70 s
// before the chat request even started. The wrapper holds side requests to the same 3 attempts.

/** Attempts per API request: general.maxAttempts in system-defaults.json, and the side-request bound. */
export const GEMINI_ATTEMPTS = 3;
/** What gemini 0.61 gives a side request (DEFAULT_MAX_ATTEMPTS of its BaseLlmClient). */
const SIDE_ATTEMPTS = 5;

const RETRYING = /Attempt (\d+) failed(?: with status (\d+))?[^\n]*Retrying/;
const FRAME = /^\s+at (?:async )?([\w$.<>]+)/;

/** The user-readable error for a side request stopped at the bound. */
export function sideRequestError({ attempt, status, caller, seconds }) {
  const routing = /Classifier\w*Strategy/.test(caller);
  const what = routing ? 'gemini\'s model-routing request (model "auto")' : `a side request of gemini's (${caller || 'BaseLlmClient'})`;
  const why = status ? `API error ${status}` : 'API errors';
  return `${what} failed ${attempt} times in ${seconds} s (${why}). gemini would retry it up to ${SIDE_ATTEMPTS} times, about a minute more, ` +
    `whatever general.maxAttempts says, so the wrapper stopped it. Try again later${routing ? ', or set GEMINI_MODEL to a fixed model (it skips the routing request)' : ''}.`;
}

/**
 * Reads gemini's stderr lines. `onRetry(attempt, status)` for each retry it announces;
 * `onSideBound({ attempt, status, caller, seconds })` once, when a side request has failed
 * `max` times and gemini is about to retry it again.
 */
export function createRetryWatch({ onRetry, onSideBound, max = GEMINI_ATTEMPTS, now = Date.now }) {
  let retry = null; // the announced retry whose stack is being read: { attempt, status, sawBase }
  let since = 0; // when the current request first failed
  let stopped = false;

  const decide = (caller) => {
    const r = retry;
    retry = null;
    if (stopped || !r.sawBase || r.attempt < max) return;
    stopped = true;
    onSideBound({ attempt: r.attempt, status: r.status, caller, seconds: Math.round((now() - since) / 1000) });
  };

  return {
    line(l) {
      const m = RETRYING.exec(l);
      if (m) {
        const attempt = Number(m[1]);
        if (attempt === 1 || !since) since = now();
        retry = { attempt, status: m[2] ? Number(m[2]) : undefined, sawBase: false };
        onRetry(attempt, retry.status);
        return;
      }
      if (!retry) return;
      const frame = FRAME.exec(l);
      if (!frame) { decide(''); return; }
      // The first frame past BaseLlmClient's own names the request's caller.
      if (frame[1].startsWith('BaseLlmClient.')) retry.sawBase = true;
      else if (retry.sawBase) decide(frame[1]);
    },
  };
}
