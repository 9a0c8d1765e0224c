/**
 * Test fixtures for other modules' tests, shipped in the broker's test-jar:
 * {@link dev.logpipe.broker.testing.EmbeddedBrokerExtension} (one real broker per test class) and
 * {@link dev.logpipe.broker.testing.TopicContents} (read a whole topic back with a real consumer) and
 * {@link dev.logpipe.broker.testing.BrokerProcess} (the broker as a child JVM to stop, {@code kill -9} and restart).
 */
package dev.logpipe.broker.testing;
