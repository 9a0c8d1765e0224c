/** The forwarder's metrics ({@code log_forwarder_*}) and its {@code /metrics} and {@code /healthz} server. */
package dev.logpipe.forwarder.internal.metrics;
