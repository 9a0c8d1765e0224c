/**
 * Elasticsearch {@code _bulk}: its actions as records (ECS mapping), its answer per item, and the handshake probes
 * clients send first.
 */
package dev.logpipe.collector.internal.compat.bulk;
