/** The indexer's HTTP port: the status API, legal holds, {@code /healthz}, {@code /readyz}, {@code /metrics}. */
package dev.logpipe.indexer.http;
