import { type Dispatcher, EnvHttpProxyAgent, fetch as undiciFetch } from 'undici';

/** The proxy variables {@link createProxyDispatcher} reads (either case; the lower-case one wins, as in curl). */
export type ProxyEnvironment = Readonly<Record<string, string | undefined>>;

function pick(env: ProxyEnvironment, name: string): string {
  return env[name.toLowerCase()] ?? env[name] ?? '';
}

/**
 * The dispatcher every outbound call of a host should share: undici's `EnvHttpProxyAgent` fed from the given
 * environment only — `HTTPS_PROXY` for `https:` targets, `HTTP_PROXY` for `http:` ones (and for `https:` ones when
 * `HTTPS_PROXY` is unset), `NO_PROXY` (comma-separated hosts, `.suffix` domains, `host:port`, `*`) for what goes
 * direct. A variable missing from `env` means "none": `process.env` is never read behind the caller's back, so a
 * test can route one call through a proxy without touching the process. Without any proxy it connects directly.
 *
 * @example
 * const dispatcher = createProxyDispatcher(process.env);
 * const anthropic = createAnthropic({ apiKey, dispatcher });
 */
export function createProxyDispatcher(env: ProxyEnvironment): Dispatcher {
  return new EnvHttpProxyAgent({
    httpProxy: pick(env, 'HTTP_PROXY'),
    httpsProxy: pick(env, 'HTTPS_PROXY'),
    noProxy: pick(env, 'NO_PROXY'),
  });
}

/**
 * A `fetch` whose requests go through `dispatcher` — for the clients that take a `fetch` rather than a dispatcher
 * (OAuth endpoints, agent polls), so they follow the same proxy rules as the provider calls.
 *
 * @example
 * const fetch = createDispatcherFetch(createProxyDispatcher(process.env));
 * await exchangeAuthorizationCode({ ...settings, fetch });
 */
export function createDispatcherFetch(dispatcher: Dispatcher): typeof globalThis.fetch {
  return ((input: Parameters<typeof globalThis.fetch>[0], init?: RequestInit) =>
    undiciFetch(input as Parameters<typeof undiciFetch>[0], {
      ...(init as Parameters<typeof undiciFetch>[1]),
      dispatcher,
    })) as unknown as typeof globalThis.fetch;
}
