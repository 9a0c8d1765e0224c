/** The bytes of answers in flight, bounded process-wide with a share per tenant. */
package dev.logpipe.query.internal.memory;
