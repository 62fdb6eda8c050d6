import { lookup } from 'node:dns/promises';
import { HalError } from '@hal-ai/spec';
import { buildConnector } from 'undici';
import { blockedAddressReason, isBlockedAddress, isIpLiteral } from './web-address.js';
import { DEFAULT_WEB_PORTS } from './web-url.js';

/** One resolved address. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/**
 * Resolves a host name to every address it has. The default is the system resolver
 * (`dns.lookup(name, {all: true})`); tests inject a fake one.
 */
export type WebResolver = (hostname: string) => Promise<ResolvedAddress[]>;

/**
 * Opens the socket once the address is checked: undici's connector options with `hostname` set to the checked
 * address (and `servername` to the name, for TLS). The default is undici's own connector; a host may wrap it (an
 * outbound proxy tunnel to the checked address), and tests point it at a counting loopback server.
 */
export type WebDial = buildConnector.connector;

/** Settings of {@link createGuardedConnector}. */
export interface GuardedConnectorSettings {
  resolve?: WebResolver;
  dial?: WebDial;
  /** `HAL_WEB_ALLOW_PRIVATE=1`: loopback, private, CGNAT and ULA addresses pass (the metadata address never). */
  allowPrivate?: boolean;
  /** Ports a connection may use (default 80 and 443). */
  allowedPorts?: readonly number[];
}

const systemResolve: WebResolver = async (hostname) => {
  const answers = await lookup(hostname, { all: true, verbatim: true });
  return answers.map((answer) => ({ address: answer.address, family: answer.family === 6 ? 6 : 4 }));
};

function blocked(host: string, address: string): HalError {
  const reason = blockedAddressReason(address) ?? 'refused';
  const shown = host === address ? address : `${host} (${address})`;
  return new HalError('web_blocked', `${shown} is a ${reason} address; HAL does not fetch it`);
}

/**
 * The SSRF guard, where the socket connects (SPEC §10): an undici connector that resolves the host ONCE, checks
 * EVERY address the name has (a name with one public and one private address is refused), and then dials exactly
 * the address it checked, so a second resolution (DNS rebinding) has nothing to change. An IP literal is checked
 * as it is. Nothing is checked by name before this point, and nothing connects without passing it.
 *
 * @example
 * const agent = new Agent({ connect: createGuardedConnector({}) });
 */
export function createGuardedConnector(settings: GuardedConnectorSettings = {}): buildConnector.connector {
  const resolve = settings.resolve ?? systemResolve;
  const dial = settings.dial ?? buildConnector({});
  const allowedPorts = settings.allowedPorts ?? DEFAULT_WEB_PORTS;
  const check = (address: string) =>
    !isBlockedAddress(address, { allowPrivate: settings.allowPrivate === true });

  return (options, callback) => {
    const hostname = options.hostname;
    const port = Number(options.port) || (options.protocol === 'https:' ? 443 : 80);
    const connect = async (): Promise<ResolvedAddress> => {
      if (!allowedPorts.includes(port)) throw new HalError('web_blocked', `Port ${port} is not fetched`);
      if (isIpLiteral(hostname)) {
        if (!check(hostname)) throw blocked(hostname, hostname);
        return { address: hostname, family: hostname.includes(':') ? 6 : 4 };
      }
      let answers: ResolvedAddress[];
      try {
        answers = await resolve(hostname);
      } catch (error) {
        throw new HalError('web_fetch_failed', `${hostname} could not be resolved`, { cause: error });
      }
      if (answers.length === 0) throw new HalError('web_fetch_failed', `${hostname} has no address`);
      for (const answer of answers) {
        // A resolver's odd answer (a mapped or decimal form) is read as the address it stands for.
        if (!check(answer.address)) throw blocked(hostname, answer.address);
      }
      return answers[0] as ResolvedAddress;
    };
    connect().then(
      (target) =>
        dial(
          {
            ...options,
            hostname: target.address,
            // TLS still verifies the certificate for the name, and SNI names it.
            servername: isIpLiteral(hostname) ? undefined : (options.servername ?? hostname),
          },
          callback,
        ),
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), null),
    );
  };
}
