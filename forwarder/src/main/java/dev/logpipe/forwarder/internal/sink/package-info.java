/** Where batches go: the {@code Sink} contract, its file, stdout, HTTP and Kafka sinks, and the schema-v3 encoding. */
package dev.logpipe.forwarder.internal.sink;
