/**
 * The Kafka producer and consumer settings our guarantees rest on: acks=all and idempotence for producers, no
 * auto-commit for committing consumers.
 */
package dev.logpipe.kafka;
