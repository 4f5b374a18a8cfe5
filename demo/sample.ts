import type { MemoryInput } from '../src/types.js';

/**
 * The bundled sample: an agent's memory of one project (a team building an order-tracking app).
 * Dates run over 2025 so the as-of picker has a history to walk through.
 */
export const SAMPLE_MEMORIES: MemoryInput[] = [
  { id: 'adr-003', kind: 'adr', domain: 'architecture', createdAt: '2025-02-03', text: 'ADR-003: agent memory lives in IndexedDB, one object store per conversation.' },
  { id: 'adr-007', kind: 'adr', domain: 'architecture', createdAt: '2025-06-12', text: 'ADR-007: SQLite-WASM on OPFS is the source of truth for agent memory; IndexedDB is no longer used.' },
  { id: 'adr-009', kind: 'adr', domain: 'architecture', createdAt: '2025-07-01', text: 'ADR-009: the memory worker owns the database; other tabs talk to it through a BroadcastChannel.' },
  { id: 'dec-search', kind: 'decision', domain: 'search', createdAt: '2025-03-18', text: 'Decision: search combines dense vectors with BM25 so exact identifiers like ticket numbers still match.' },
  { id: 'dec-model', kind: 'decision', domain: 'search', createdAt: '2025-04-02', text: 'Decision: embeddings come from all-MiniLM-L6-v2 running on device; no text leaves the browser.' },
  { id: 'dec-hnsw', kind: 'decision', domain: 'search', createdAt: '2025-09-22', text: 'Decision: switch the dense index to HNSW once a store holds tens of thousands of memories.' },
  { id: 'svc-tracking', kind: 'service', domain: 'orders', createdAt: '2025-01-20', text: 'The tracking service polls carrier APIs every 10 minutes and writes shipment events.' },
  { id: 'svc-notify', kind: 'service', domain: 'orders', createdAt: '2025-01-22', text: 'The notification service e-mails customers when a shipment event changes the delivery date.' },
  { id: 'svc-carrier', kind: 'service', domain: 'orders', createdAt: '2025-01-25', text: 'The carrier gateway wraps DHL and UPS webhooks behind one signed endpoint.' },
  { id: 'lib-queue', kind: 'service', domain: 'platform', createdAt: '2025-01-10', text: 'The job queue runs on Redis streams with at-least-once delivery.' },
  { id: 'order-4821', kind: 'order', domain: 'support', createdAt: '2025-05-06', text: 'Order #4821 (Acme GmbH): parcel stuck in Leipzig hub for 6 days, customer asked for a refund.' },
  { id: 'order-4812', kind: 'order', domain: 'support', createdAt: '2025-05-04', text: 'Order #4812 (Borealis Ltd): delivered on time, invoice address corrected by hand.' },
  { id: 'ops-1193', kind: 'ticket', domain: 'support', createdAt: '2025-05-07', text: 'OPS-1193: tracking events for order #4821 stopped after the carrier rotated its webhook secret.' },
  { id: 'ops-1201', kind: 'ticket', domain: 'support', createdAt: '2025-05-09', text: 'OPS-1201: customers got duplicate delay e-mails because the queue redelivered events.' },
  { id: 'fix-1193', kind: 'fix', domain: 'support', createdAt: '2025-05-08', text: 'Fix for OPS-1193: webhook secrets are now read from the vault on every request, not cached at boot.' },
  { id: 'fix-1201', kind: 'fix', domain: 'support', createdAt: '2025-05-12', text: 'Fix for OPS-1201: the notification service de-duplicates events by (order, event id) before sending.' },
  { id: 'pref-tone', kind: 'preference', domain: 'people', createdAt: '2025-03-01', text: 'Maria prefers short status updates with the ticket number in the subject line.' },
  { id: 'pref-deploy', kind: 'preference', domain: 'people', createdAt: '2025-08-15', text: 'The team deploys on Tuesdays and Thursdays only; Friday deploys need a second reviewer.' },
  { id: 'meet-q3', kind: 'meeting', domain: 'planning', createdAt: '2025-07-03', text: 'Q3 planning: priority is offline support for the warehouse tablets, then the refund flow.' },
  { id: 'risk-offline', kind: 'risk', domain: 'planning', createdAt: '2025-07-04', text: 'Risk: warehouse tablets lose Wi-Fi in the cold store, so the app must queue scans locally.' },
  { id: 'refund-flow', kind: 'decision', domain: 'orders', createdAt: '2025-07-20', text: 'Refunds over 500 EUR need approval from finance; the agent drafts the request with the order history.' },
  { id: 'postmortem-may', kind: 'postmortem', domain: 'support', createdAt: '2025-05-20', text: 'Postmortem May outage: a rotated carrier secret silently broke tracking for 31 hours; alerting only watched HTTP 5xx.' },
  { id: 'alert-rule', kind: 'decision', domain: 'platform', createdAt: '2025-05-22', text: 'Alert when no tracking event arrives for 2 hours during business hours, whatever the HTTP status.' },
];

export type SampleEdge = [from: string, to: string, type: string];

export const SAMPLE_EDGES: SampleEdge[] = [
  ['adr-007', 'adr-003', 'SUPERSEDES'],
  ['adr-009', 'adr-007', 'DEPENDS_ON'],
  ['dec-hnsw', 'dec-search', 'EXTENDS'],
  ['dec-search', 'dec-model', 'DEPENDS_ON'],
  ['svc-notify', 'svc-tracking', 'DEPENDS_ON'],
  ['svc-tracking', 'svc-carrier', 'DEPENDS_ON'],
  ['svc-tracking', 'lib-queue', 'DEPENDS_ON'],
  ['svc-notify', 'lib-queue', 'DEPENDS_ON'],
  ['ops-1193', 'order-4821', 'REFERENCES'],
  ['ops-1193', 'svc-carrier', 'REFERENCES'],
  ['fix-1193', 'ops-1193', 'IMPLEMENTS'],
  ['ops-1201', 'svc-notify', 'REFERENCES'],
  ['fix-1201', 'ops-1201', 'IMPLEMENTS'],
  ['postmortem-may', 'ops-1193', 'DERIVED_FROM'],
  ['alert-rule', 'postmortem-may', 'DERIVED_FROM'],
  ['risk-offline', 'meet-q3', 'DERIVED_FROM'],
  ['refund-flow', 'order-4821', 'REFERENCES'],
];

export const SAMPLE_QUERIES = [
  'where does agent memory live?',
  'why did tracking stop for order #4821?',
  'OPS-1201',
  'what does the notification service depend on?',
  'how should I write to Maria?',
];
