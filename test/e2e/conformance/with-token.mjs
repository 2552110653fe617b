// Preloaded (--import) into the MCP conformance suite's process: its client has no option for a
// bearer token, so every request it sends to the server under test (fetch and undici alike use
// the global dispatcher) gets `Authorization: Bearer $WCM_CONFORMANCE_TOKEN`. Host and Origin are
// left as the suite sets them (the DNS-rebinding scenario forges them).
import { Agent, setGlobalDispatcher } from 'undici';

const token = process.env.WCM_CONFORMANCE_TOKEN;
const origin = process.env.WCM_CONFORMANCE_ORIGIN;
if (!token || !origin) throw new Error('with-token.mjs: set WCM_CONFORMANCE_TOKEN and WCM_CONFORMANCE_ORIGIN');

function withToken(headers) {
  const auth = `Bearer ${token}`;
  if (Array.isArray(headers)) return [...headers, 'authorization', auth];
  return { ...(headers ?? {}), authorization: auth };
}

setGlobalDispatcher(
  new Agent().compose(
    (dispatch) => (opts, handler) =>
      dispatch(
        new URL(String(opts.origin)).origin === origin ? { ...opts, headers: withToken(opts.headers) } : opts,
        handler,
      ),
  ),
);
