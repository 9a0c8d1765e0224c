/** Loki push (snappy protobuf and JSON): one record per entry, labels and structured metadata as fields. */
package dev.logpipe.collector.internal.compat.loki;
