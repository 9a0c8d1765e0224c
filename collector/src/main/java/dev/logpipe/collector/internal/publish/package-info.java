/** Kafka publishing with {@code acks=all} and an idempotent producer, and the topics created at startup. */
package dev.logpipe.collector.internal.publish;
