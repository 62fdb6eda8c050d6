import fs from 'node:fs';

/** A parsed systemd unit: each section's keys with every value given (in order), and the `Environment=` pairs. */
export interface UnitFile {
  [section: string]: Record<string, string[]> | (() => Record<string, string>);
  Service: Record<string, string[]>;
  /** The `Environment=` assignments of `[Service]`, later ones winning. */
  environment(): Record<string, string>;
}

/** Splits `A=1 "B=two words"` into assignments, as systemd reads `Environment=`. */
function assignments(value: string): Array<[string, string]> {
  const words = value.match(/"[^"]*"|\S+/g) ?? [];
  return words.map((word) => {
    const text = word.startsWith('"') ? word.slice(1, -1) : word;
    const equals = text.indexOf('=');
    return [text.slice(0, equals), text.slice(equals + 1)];
  });
}

/** Reads a unit file the way systemd does for what tests need: sections, repeated keys, comments, `Environment=`. */
export function readUnitFile(file: string): UnitFile {
  const sections: Record<string, Record<string, string[]>> = {};
  let current: Record<string, string[]> | undefined;
  for (const raw of fs.readFileSync(file, 'utf8').split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const section = /^\[(.+)\]$/.exec(line)?.[1];
    if (section !== undefined) {
      current = sections[section] ?? {};
      sections[section] = current;
      continue;
    }
    const equals = line.indexOf('=');
    if (current === undefined || equals < 0) throw new Error(`${file}: cannot read "${line}"`);
    const key = line.slice(0, equals).trim();
    const values = current[key] ?? [];
    values.push(line.slice(equals + 1).trim());
    current[key] = values;
  }
  const service = sections.Service ?? {};
  return {
    ...sections,
    Service: service,
    environment: () => Object.fromEntries((service.Environment ?? []).flatMap(assignments)),
  };
}

/** Reads an `EnvironmentFile=` (`NAME=value` lines, `#` comments, optional quotes). */
export function readEnvironmentFile(file: string): Record<string, string> {
  const result: Record<string, string> = {};
  for (const raw of fs.readFileSync(file, 'utf8').split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (!match?.[1]) throw new Error(`${file}: cannot read "${line}"`);
    result[match[1]] = (match[2] ?? '').replace(/^"(.*)"$/, '$1');
  }
  return result;
}
