// The README's billing example, run for real: another suite module defining its own registry.
import { HalError } from '@hal-ai/spec';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { defineTool } from './tool-definition.js';
import { executeTool } from './tool-execution.js';
import { createToolRegistry } from './tool-registry.js';

interface Invoice {
  id: string;
  customer: string;
  paidCents: number;
  refunds: { amountCents: number; reason: string; by: string }[];
}
interface InvoiceStore {
  get(id: string): Promise<Invoice>;
  refund(id: string, amountCents: number, reason: string, by: string): Promise<Invoice>;
}
interface BillingContext {
  invoices: InvoiceStore;
  operatorId: string;
}

function createMemoryInvoiceStore(seed: Invoice[]): InvoiceStore {
  const rows = new Map(seed.map((invoice) => [invoice.id, invoice]));
  const find = (id: string) => {
    const invoice = rows.get(id);
    if (!invoice) throw new HalError('not_found', `No invoice ${id}`);
    return invoice;
  };
  return {
    async get(id) {
      return structuredClone(find(id));
    },
    async refund(id, amountCents, reason, by) {
      const invoice = find(id);
      invoice.paidCents -= amountCents;
      invoice.refunds.push({ amountCents, reason, by });
      return structuredClone(invoice);
    },
  };
}

const invoiceGet = defineTool({
  name: 'billing_invoice_get',
  description: 'One invoice with its lines and payment state.',
  risk: 'read',
  args: v.object({ invoiceId: v.pipe(v.string(), v.regex(/^inv_[a-z0-9]{8,32}$/)) }),
  execute: (billing: BillingContext, { invoiceId }) => billing.invoices.get(invoiceId),
});

const invoiceRefund = defineTool({
  name: 'billing_invoice_refund',
  description: 'Refund an invoice, in full or in part.',
  risk: 'high',
  args: v.object({
    invoiceId: v.pipe(v.string(), v.regex(/^inv_[a-z0-9]{8,32}$/)),
    amountCents: v.pipe(v.number(), v.integer(), v.minValue(1)),
    reason: v.pipe(v.string(), v.minLength(3), v.maxLength(200)),
  }),
  identifiers: ({ invoiceId }) => [invoiceId],
  impact: async (billing: BillingContext, { invoiceId, amountCents }) => {
    const invoice = await billing.invoices.get(invoiceId);
    return { invoiceId, customer: invoice.customer, refund: amountCents, paid: invoice.paidCents };
  },
  execute: async (billing: BillingContext, { invoiceId, amountCents, reason }) => {
    const invoice = await billing.invoices.get(invoiceId);
    if (amountCents > invoice.paidCents)
      throw new HalError('validation_failed', 'Refund exceeds the paid amount');
    return billing.invoices.refund(invoiceId, amountCents, reason, billing.operatorId);
  },
});

describe('README: a billing module with its own registry', () => {
  const setup = () => {
    const billing: BillingContext = {
      invoices: createMemoryInvoiceStore([
        { id: 'inv_0000abcd', customer: 'ACME', paidCents: 5000, refunds: [] },
      ]),
      operatorId: 'op-1',
    };
    return { billing, registry: createToolRegistry<BillingContext>([invoiceGet, invoiceRefund]) };
  };

  it('declares only the read tool under read_only, and exposes identifiers and impact of the high one', async () => {
    const { billing, registry } = setup();
    expect(registry.declarations({ preset: 'read_only' }).map((tool) => tool.name)).toEqual([
      'billing_invoice_get',
    ]);
    const refund = registry.get('billing_invoice_refund');
    const args = { invoiceId: 'inv_0000abcd', amountCents: 1200, reason: 'duplicate charge' };
    expect(refund?.identifiers?.(args)).toEqual(['inv_0000abcd']);
    await expect(refund?.impact?.(billing, args)).resolves.toEqual({
      invoiceId: 'inv_0000abcd',
      customer: 'ACME',
      refund: 1200,
      paid: 5000,
    });
  });

  it('executes, refuses bad arguments before the store is touched, and maps domain errors', async () => {
    const { billing, registry } = setup();
    const refund = { invoiceId: 'inv_0000abcd', amountCents: 1200, reason: 'duplicate charge' };
    const done = await executeTool(registry, 'billing_invoice_refund', refund, billing);
    expect(done.ok && (done.output as Invoice).paidCents).toBe(3800);

    const bad = await executeTool(
      registry,
      'billing_invoice_refund',
      { ...refund, invoiceId: '../etc' },
      billing,
    );
    expect(bad.ok === false && bad.error.issues?.map((issue) => issue.path)).toEqual(['invoiceId']);
    const tooMuch = await executeTool(
      registry,
      'billing_invoice_refund',
      { ...refund, amountCents: 999_999 },
      billing,
    );
    expect(tooMuch).toEqual({
      ok: false,
      error: { code: 'validation_failed', message: 'Refund exceeds the paid amount' },
    });
    const missing = await executeTool(
      registry,
      'billing_invoice_get',
      { invoiceId: 'inv_ffffffff' },
      billing,
    );
    expect(missing.ok === false && missing.error.code).toBe('not_found');
    expect((await billing.invoices.get('inv_0000abcd')).refunds).toHaveLength(1);
  });
});
