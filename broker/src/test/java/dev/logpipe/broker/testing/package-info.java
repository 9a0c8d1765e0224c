/**
 * Test fixtures for other modules' tests, shipped in the broker's test-jar:
 * {@link dev.logpipe.broker.testing.EmbeddedBrokerExtension} (one real broker per test class) and
 * {@link dev.logpipe.broker.testing.TopicContents} (read a whole topic back with a real consumer).
 */
package dev.logpipe.broker.testing;
