/**
 * Test-only helpers shared by the modules' tests: a real child JVM ({@link dev.logpipe.testkit.ChildJvm}),
 * an application log file that can be rotated ({@link dev.logpipe.testkit.LogFile}), an incremental NDJSON
 * reader ({@link dev.logpipe.testkit.NdjsonTail}), a Prometheus scrape, a free port, and the {@link
 * dev.logpipe.testkit.Integration} tag of the tests the fast loop leaves out. It depends on no
 * logpipe module, so every module can use it in test scope; it is never a runtime dependency.
 */
package dev.logpipe.testkit;
