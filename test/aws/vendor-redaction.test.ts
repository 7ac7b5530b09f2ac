import { describe, expect, it } from '@jest/globals';
import { sendJson, VendorUnavailableError } from '../../aws/vendors/http.ts';

const ONCE = { maxAttempts: 1, attemptTimeoutMs: 2000, baseDelayMs: 1, maxDelayMs: 1 };

describe('a vendor call that fails', () => {
  it('never quotes a key with an inner line break that fetch refuses as a header value', async () => {
    const key = 'GenieKey 5a1c0de7-aaaa-bbbb\ncccc-0123456789ab';
    let error: unknown;
    try {
      await sendJson(
        { url: 'https://api.opsgenie.com/v2/alerts', headers: { Authorization: key }, body: {}, describe: 'Opsgenie' },
        ONCE,
      );
    } catch (caught) {
      error = caught;
    }

    expect(error).toBeInstanceOf(VendorUnavailableError);
    expect(String(error)).not.toMatch(/5a1c0de7|cccc-0123456789ab|GenieKey/);
  });
});
