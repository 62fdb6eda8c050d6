// Runs the Anthropic fake in its own process so the benchmark's CPU numbers are the client's alone.
import { createFakeAnthropic } from '../dist/testing/index.js';

const chunks = Number(process.env.BENCH_CHUNKS ?? 40);
const text = 'The quick brown fox jumps over the lazy dog. '.repeat(8);
const fake = await createFakeAnthropic({ respond: () => ({ text, chunks }) });
process.stdout.write(`${fake.url}\n`);
process.on('SIGTERM', () => fake.close().then(() => process.exit(0)));
