/**
 * The embedded single-node KRaft Kafka broker: {@link dev.logpipe.broker.EmbeddedBroker} formats its data directory
 * once, starts on 127.0.0.1 and stops cleanly; {@link dev.logpipe.broker.Topics} creates a topic and waits until
 * every partition is served; {@link dev.logpipe.broker.BrokerMain} runs it as a process of its own (the test-jar's
 * {@code testing.BrokerProcess} drives such a process from a test: SIGTERM, {@code kill -9}, restart).
 * Used by {@code standalone} and by tests; never by the forwarder.
 */
package dev.logpipe.broker;
