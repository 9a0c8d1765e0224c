/**
 * Admission before a body is read: the global bound on bytes in flight, request slots per tenant, address and in all,
 * and the tenants' rate limits.
 */
package dev.logpipe.collector.internal.admission;
