/** The Loki-compatible read API (docs/loki.md): LogQL parsed into the query service's plan and evaluated in bounded memory, with Loki's request parameters and answer shapes. */
package dev.logpipe.query.internal.loki;
